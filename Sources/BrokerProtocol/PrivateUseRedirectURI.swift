/// A private-use URI scheme redirect (RFC 8252 §7.1): `scheme:/path` or `scheme://host/path`, e.g.
/// `shop.4242.app://callback` or `com.example.app:/oauth2redirect`. The browser hands the redirect
/// to the desktop's handler for the scheme (`authctl callback URL`), never to a listener.
///
/// Checked the same way by authctl (which warns about a scheme without a dot) and the daemon
/// (which refuses everything else): the scheme has RFC 3986 §3.1 syntax and is none a browser or
/// the desktop owns; the URI is printable ASCII without spaces, query or fragment, at most 512 bytes.
/// Callback URLs match only with the same scheme (case-insensitive, RFC 3986 §3.1), exactly the
/// same host and exactly the same path.
public struct PrivateUseRedirectURI: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Lowercased.
    public let scheme: String
    /// The host after `//`, nil for the `scheme:/path` form.
    public let host: String?
    /// May be empty in the `scheme://host` form (`shop.4242.app://callback`).
    public let path: String
    /// The URI as configured: what the authorization request and the code exchange send.
    public let description: String

    public static let maximumLength = 512

    /// Schemes a browser or the desktop already handles: registering authctl for them would
    /// hijack the user's files, mail or web pages, and the browser would not hand them over.
    public static let reservedSchemes: Set<String> = [
        "about", "blob", "chrome", "chrome-extension", "chrome-untrusted", "data", "devtools", "edge", "file",
        "filesystem", "ftp", "ftps", "geo", "git", "intent", "irc", "ircs", "javascript", "jar", "ldap", "magnet",
        "mailto", "moz-extension", "news", "nntp", "resource", "sftp", "sip", "sips", "sms", "smb", "snews", "ssh",
        "tel", "telnet", "trash", "urn", "vbscript", "view-source", "webcal", "ws", "wss", "xmpp",
        "appstream", "apt", "computer", "dav", "davs", "network", "recent", "snap", "steam",
    ]

    /// Why a configured redirect URI is refused; the description says what to do instead.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case syntax(String)
        case loopbackScheme(String)
        case reservedScheme(String)

        public var description: String {
            switch self {
            case .syntax(let why):
                "The redirect URI must be a private-use scheme URI such as myapp.example:/callback or "
                    + "shop.4242.app://callback: \(why)."
            case .loopbackScheme(let scheme):
                "The redirect URI cannot use \(scheme): for a loopback redirect use --redirect-host, "
                    + "--redirect-port and --redirect-path instead of --redirect-uri."
            case .reservedScheme(let scheme):
                "The redirect URI scheme '\(scheme)' belongs to the browser or the desktop; register a "
                    + "private-use scheme (reverse domain name, e.g. com.example.app) with the provider."
            }
        }
    }

    public init(parsing text: String) throws(Problem) {
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength else {
            throw .syntax("it must be 1 to \(Self.maximumLength) bytes long")
        }
        guard text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .syntax("it must be printable ASCII without spaces")
        }
        guard !text.contains("?"), !text.contains("#") else { throw .syntax("it must have no query or fragment") }
        guard let parts = Self.split(Substring(text)) else {
            throw .syntax("it needs a scheme of letters, digits, '+', '-' or '.' starting with a letter, then ':'")
        }
        if parts.scheme == "http" || parts.scheme == "https" { throw .loopbackScheme(parts.scheme) }
        if Self.reservedSchemes.contains(parts.scheme) { throw .reservedScheme(parts.scheme) }
        if let host = parts.host, host.isEmpty || host.contains("@") {
            throw .syntax("the part after '//' must be a host name (no user name), e.g. shop.4242.app://callback")
        }
        if parts.host == nil, !parts.path.hasPrefix("/") {
            throw .syntax("the path after '\(parts.scheme):' must start with '/'")
        }
        if parts.path.hasPrefix("//") { throw .syntax("the path must not start with '//'") }
        (scheme, host, path, description) = (parts.scheme, parts.host.map(String.init), String(parts.path), text)
    }

    /// RFC 8252 §7.1 asks for a reverse domain name the app controls; a dotless scheme is likelier
    /// to collide with another application's handler. A warning, not a refusal.
    public var warning: String? {
        guard !scheme.contains(".") else { return nil }
        return "The redirect URI scheme '\(scheme)' has no dot: RFC 8252 §7.1 asks for a reverse domain "
            + "name you control (e.g. com.example.\(scheme)), which another application is unlikely to claim."
    }

    /// The query of `url` when it is this redirect (same scheme, exact host and path), with any
    /// fragment dropped; nil when it is not. The URL is a secret: it is never put in an error.
    public func callbackQuery(_ url: String) -> Substring? {
        guard url.utf8.count <= 16 * 1024 else { return nil }
        let withoutFragment = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let halves = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard let parts = Self.split(halves[0]), parts.scheme == scheme, parts.host.map(String.init) == host,
            parts.path == path
        else { return nil }
        return halves.count > 1 ? halves[1] : ""
    }

    /// scheme (lowercased) ":" [ "//" host ] path — nil without a valid RFC 3986 §3.1 scheme.
    private static func split(_ text: Substring) -> (scheme: String, host: Substring?, path: Substring)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.utf8.first, isLetter(first),
            scheme.utf8.allSatisfy({ isLetter($0) || (48...57).contains($0) || $0 == 43 || $0 == 45 || $0 == 46 })
        else { return nil }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return (scheme.lowercased(), nil, rest) }
        let authority = rest.dropFirst(2)
        let slash = authority.firstIndex(of: "/") ?? authority.endIndex
        return (scheme.lowercased(), authority[..<slash], authority[slash...])
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (65...90).contains(byte) || (97...122).contains(byte) }
}

extension PrivateUseRedirectURI {
    /// Coded as the URI text, parsed again on decoding (so a decoded value passed the same checks).
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(parsing: text)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
