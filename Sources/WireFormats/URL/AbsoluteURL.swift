/// An absolute URL with an authority (RFC 3986 §3: `scheme://[userinfo@]host[:port]path[?query][#fragment]`),
/// parsed from its bytes in one pass: the one URL parser of every module. Policy stays with the
/// callers (which schemes, whether user info or a fragment is refused, plain http only for
/// `host.isLoopback`); what the parser refuses, it refuses for all of them (`URLSyntaxError`).
///
/// Strict where parsers have disagreed, so two components never read one URL two ways:
/// - at most `maximumLength` bytes, all visible ASCII (0x21…0x7E): percent-encode the rest;
/// - the scheme ends at the first `://`, and is `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`;
/// - user info ends at the authority's last `@`, is kept as written and never lower-cased;
/// - a host is a registered name of unreserved and sub-delim characters (no percent-escapes), a
///   dotted quad (`dec-octet`, no leading zeros), or a bracketed IPv6 literal without a zone;
/// - a port is 1–5 digits, 1…65535; `host:` with no digits is refused, as is a sign;
/// - a `%` in the path is followed by two hex digits. Query and fragment are opaque (no caller
///   reads inside them) and only kept visible ASCII.
public struct AbsoluteURL: Sendable, Hashable {
    /// Longer URLs are refused before any other check (a request line's target is bounded alike).
    public static let maximumLength = 8192

    /// The URL as given.
    public let text: String
    /// Lower-cased.
    public let scheme: String
    public let host: Host
    /// The port written in the URL, nil when none was (see `effectivePort`).
    public let port: Int?
    private let userInfoRange: Range<Int>?
    private let pathRange: Range<Int>
    private let queryRange: Range<Int>?
    private let fragmentRange: Range<Int>?

    public init(_ text: String, maximumLength: Int = AbsoluteURL.maximumLength) throws(URLSyntaxError) {
        var copy = text
        let parts = try copy.withUTF8 { bytes in
            Result { () throws(URLSyntaxError) in try URLGrammar.parse(bytes, maximumLength: maximumLength) }
        }.get()
        self.text = text
        (scheme, host, port) = (parts.scheme, parts.host, parts.port)
        (userInfoRange, pathRange, queryRange, fragmentRange) = (parts.userInfo, parts.path, parts.query, parts.fragment)
    }

    public var hasUserInfo: Bool { userInfoRange != nil }
    /// As written (percent-escapes kept), nil without an `@`.
    public var userInfo: Substring? { userInfoRange.map(slice) }
    /// As written, possibly empty; never holds the query or fragment.
    public var path: Substring { slice(pathRange) }
    /// After `?` up to `#`, nil without a `?`.
    public var query: Substring? { queryRange.map(slice) }
    /// After `#`, nil without a `#`.
    public var fragment: Substring? { fragmentRange.map(slice) }

    /// The scheme's default port for http and https, nil for other schemes.
    public var defaultPort: Int? {
        switch scheme {
        case "https": 443
        case "http": 80
        default: nil
        }
    }

    /// `port`, else the scheme's default.
    public var effectivePort: Int? { port ?? defaultPort }

    /// `host[:port]` as written in a URL or `Host` header, the port only when the URL has one.
    public var authority: String { host.uriText + (port.map { ":" + String($0) } ?? "") }

    /// `scheme://host[:port]`, lower-cased, without user info (RFC 6454's serialisation, but the
    /// port kept when written so that two spellings stay two keys only if they differ in it).
    public var origin: String { scheme + "://" + authority }

    private func slice(_ range: Range<Int>) -> Substring {
        let utf8 = text.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        return Substring(utf8[start..<utf8.index(start, offsetBy: range.count)])
    }

    public static func == (left: AbsoluteURL, right: AbsoluteURL) -> Bool { left.text == right.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

/// Why `AbsoluteURL` refused a text; the caller words the message for its user.
public enum URLSyntaxError: Error, Sendable, Equatable {
    case tooLong(maximum: Int)
    /// No `scheme://`.
    case notAbsolute
    case invalidScheme
    /// A byte outside visible ASCII (a space, a control character, anything non-ASCII).
    case notVisibleASCII
    case emptyHost
    /// A registered name with a character outside unreserved and sub-delims (or a `%`).
    case invalidHost
    case unclosedIPv6
    case invalidIPv6
    /// `[fe80::1%25eth0]` (RFC 6874).
    case ipv6Zone
    /// `[::1]x`.
    case textAfterIPv6
    case invalidPort
    /// A `%` in the path without two hex digits after it.
    case invalidPercentEncoding
}

extension URLSyntaxError: CustomStringConvertible {
    /// A phrase about "it" (the URL), for messages that say what to change.
    public var description: String {
        switch self {
        case .tooLong(let maximum): "it is longer than \(maximum) bytes"
        case .notAbsolute: "it is not absolute (no scheme://)"
        case .invalidScheme: "its scheme is not a URL scheme"
        case .notVisibleASCII: "it has spaces, control or non-ASCII characters (percent-encode them)"
        case .emptyHost: "it has no host"
        case .invalidHost: "its host has a character a host name cannot have"
        case .unclosedIPv6: "the IPv6 host has no closing ]"
        case .invalidIPv6: "the host in [ ] is not an IPv6 address"
        case .ipv6Zone: "the IPv6 host has a zone (%…); remove it"
        case .textAfterIPv6: "text follows the IPv6 host"
        case .invalidPort: "the port is not a number from 1 to 65535"
        case .invalidPercentEncoding: "the path has a % that is not followed by two hex digits"
        }
    }
}
