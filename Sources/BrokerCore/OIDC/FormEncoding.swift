/// `application/x-www-form-urlencoded` and query-component percent-encoding, as RFC 6749
/// Appendix B requires for token requests, authorization URLs and the redirect's query.
///
/// Kept internal and small on purpose: BrokerHTTP's codec is the project's form encoder
/// once it lands; this one exists so the engine does not wait for it.
enum FormEncoding {
    /// Unreserved characters (RFC 3986 §2.3) pass through; everything else is %XX-encoded
    /// from its UTF-8 bytes. A space becomes `+` in form bodies and `%20` in URLs (both
    /// decoders read `%20` as a space; only form decoders read `+` that way).
    static func encode(_ text: String, spaceAsPlus: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else if byte == 0x20 && spaceAsPlus {
                out.append(UInt8(ascii: "+"))
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A form body (or query) from ordered pairs.
    static func encode(_ pairs: [(String, String)], spaceAsPlus: Bool = true) -> String {
        pairs.map { encode($0.0, spaceAsPlus: spaceAsPlus) + "=" + encode($0.1, spaceAsPlus: spaceAsPlus) }
            .joined(separator: "&")
    }

    /// Decodes `a=1&b=x+y` into ordered pairs. `+` is a space; a bad %-escape or invalid UTF-8
    /// is refused (nil) rather than repaired, because these values are compared exactly.
    static func decode(_ query: some StringProtocol) -> [(String, String)]? {
        var pairs: [(String, String)] = []
        for field in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(parts[0]), let value = unescape(parts.count > 1 ? parts[1] : "") else {
                return nil
            }
            pairs.append((name, value))
        }
        return pairs
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    private static func unescape(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
