import BrokerHTTP
import BrokerProtocol
import FoundationEssentials
import WireFormats

/// The `Retry-After` response header (RFC 9110 §10.2.3): delta-seconds or an HTTP-date.
public enum RetryAfter {
    /// Longest wait we accept from a server; a larger value is clamped, so a hostile or broken
    /// server cannot park an account for years.
    public static let maximum: Duration = .seconds(86_400)

    /// The wait the header asks for, relative to `now`; nil when the value is not a valid
    /// delta-seconds or HTTP-date. A date in the past means "now" (zero).
    public static func parse(_ value: String, now: Date) -> Duration? {
        let trimmed = String(value.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            // More than 6 digits is already beyond the cap; avoid overflow on absurd values.
            guard trimmed.count <= 6, let seconds = Int64(trimmed) else { return maximum }
            return min(.seconds(seconds), maximum)
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        let seconds = date.timeIntervalSince(now)
        guard seconds > 0 else { return .zero }
        return min(.seconds(Int64(seconds.rounded(.up))), maximum)
    }

    /// The wait asked for by a response's Retry-After header, if any.
    public static func from(_ headers: HTTPHeaders, now: Date) -> Duration? {
        headers["Retry-After"].flatMap { parse($0, now: now) }
    }
}

/// HTTP-date parsing (RFC 9110 §5.6.7): IMF-fixdate plus the two obsolete forms recipients
/// must accept (RFC 850 and asctime). Always GMT.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
        if parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT" {
            return make(day: parts[1], month: parts[2], year: parts[3], time: parts[4])
        }
        // RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT" (two-digit year: 70-99 → 19xx, else 20xx)
        if parts.count == 4, parts[0].hasSuffix(","), parts[3] == "GMT" {
            let dmy = parts[1].split(separator: "-").map(String.init)
            guard dmy.count == 3, dmy[2].count == 2, let yy = Int(dmy[2]) else { return nil }
            return make(day: dmy[0], month: dmy[1], year: String(yy >= 70 ? 1900 + yy : 2000 + yy), time: parts[2])
        }
        // asctime: "Sun Nov  6 08:49:37 1994"
        if parts.count == 5 {
            return make(day: parts[2], month: parts[1], year: parts[4], time: parts[3])
        }
        return nil
    }

    private static func make(day: String, month: String, year: String, time: String) -> Date? {
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard let d = Int(day), (1...31).contains(d), let m = months.firstIndex(of: month),
            year.count == 4, let y = Int(year), clock.count == 3,
            (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        let days = Int(RFC3339.daysSinceEpoch(year: Int64(y), month: Int64(m + 1), day: Int64(d)))
        let seconds = days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
