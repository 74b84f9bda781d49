/// A parsed absolute http(s) URL as the engine needs it: scheme, host, port, path, query.
///
/// Deliberately strict and small: no user-info (`user@host` is a classic phishing shape),
/// no fragment, lower-case scheme. Used to check endpoints, build discovery URLs and
/// compare redirect URIs.
struct EndpointURL: Sendable, Equatable {
    var scheme: String
    /// Host as written, IPv6 literals with their brackets (`[::1]`).
    var host: String
    var port: Int?
    /// Path, possibly empty; never includes the query.
    var path: String
    var query: String?

    init(scheme: String, host: String, port: Int? = nil, path: String, query: String? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.query = query
    }

    /// Parses `text`; the error names `what` (e.g. "token_endpoint") so the user knows which value is wrong.
    /// Reads the UTF-8 bytes once per check: a refresh parses several of these URLs (the token
    /// endpoint, the JWKS, the issuer twice), and the `String` algorithms cost ≈ 40 k instructions
    /// a parse (docs/BENCHMARKS-archive.md, "Forced refresh: the URL parses"). `EndpointURLTests`
    /// pins the shapes.
    init(parsing text: String, what: String) throws(OIDCError) {
        func fail(_ why: String) -> OIDCError { .invalidConfiguration("\(what) '\(ProviderText.sanitize(text))' \(why)") }
        let utf8 = text.utf8
        guard let separator = Self.firstSchemeSeparator(in: utf8), separator != utf8.startIndex else {
            throw fail("is not an absolute URL")
        }
        // No letter outside ASCII lower-cases into "http": comparing bytes is what `lowercased()` gave.
        switch Self.asciiLowercased(text[..<separator]) {
        case "https": scheme = "https"
        case "http": scheme = "http"
        default: throw fail("must use https")
        }
        guard !utf8.contains(UInt8(ascii: "#")) else { throw fail("must not contain a fragment") }
        // A scalar outside 0x21…0x7E has a byte outside that range, and only such a scalar does.
        guard !utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else {
            throw fail("contains spaces or non-ASCII characters")
        }
        // ASCII from here on: every byte index is a character boundary.
        let rest = utf8.index(separator, offsetBy: 3)
        let authorityEnd = utf8[rest...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? utf8.endIndex
        let authority = utf8[rest..<authorityEnd]
        guard !authority.contains(UInt8(ascii: "@")) else { throw fail("must not contain user information") }
        var hostEnd = authorityEnd
        port = nil
        if let colon = authority.lastIndex(of: UInt8(ascii: ":")), !authority[colon...].contains(UInt8(ascii: "]")) {
            guard let number = Int(text[utf8.index(after: colon)..<authorityEnd]), (1...65535).contains(number) else {
                throw fail("has an invalid port")
            }
            port = number
            hostEnd = colon
        }
        guard rest != hostEnd else { throw fail("has no host") }
        host = Self.asciiLowercased(text[rest..<hostEnd])
        if let question = utf8[authorityEnd...].firstIndex(of: UInt8(ascii: "?")) {
            path = String(text[authorityEnd..<question])
            query = String(text[utf8.index(after: question)...])
        } else {
            path = String(text[authorityEnd...])
            query = nil
        }
    }

    /// The index of the first "://" in `utf8`.
    private static func firstSchemeSeparator(in utf8: String.UTF8View) -> String.Index? {
        var index = utf8.startIndex
        while let colon = utf8[index...].firstIndex(of: UInt8(ascii: ":")) {
            let slashes = utf8[utf8.index(after: colon)...].prefix(2)
            if slashes.count == 2, slashes.allSatisfy({ $0 == UInt8(ascii: "/") }) { return colon }
            index = utf8.index(after: colon)
        }
        return nil
    }

    /// `text` with ASCII capitals lower-cased, every other byte as it is.
    private static func asciiLowercased(_ text: Substring) -> String {
        let isCapital = { (byte: UInt8) in byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
        guard text.utf8.contains(where: isCapital) else { return String(text) }
        return String(decoding: text.utf8.map { isCapital($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// True for hosts that never leave this machine: 127.0.0.0/8, ::1, localhost.
    var isLoopback: Bool {
        if host == "localhost" || host == "[::1]" { return true }
        guard host.hasPrefix("127.") else { return false }
        let octets = host.utf8.split(separator: UInt8(ascii: "."))
        return octets.count == 4 && octets.allSatisfy { UInt8(Substring($0)) != nil }
    }

    /// Refuses plain http except to loopback hosts (allowed for development and tests).
    func requireSecure(_ what: String) throws(OIDCError) {
        guard scheme == "https" || isLoopback else {
            throw .invalidConfiguration("\(what) must use https (plain http is allowed only for loopback hosts)")
        }
    }

    /// `scheme://host[:port]`
    var origin: String { "\(scheme)://\(host)" + (port.map { ":\($0)" } ?? "") }

    var string: String { origin + path + (query.map { "?\($0)" } ?? "") }
}

extension EndpointURL {
    /// Parses and checks an endpoint URL from metadata or configuration in one step.
    static func secure(_ text: String, what: String) throws(OIDCError) -> EndpointURL {
        let url = try EndpointURL(parsing: text, what: what)
        try url.requireSecure(what)
        return url
    }
}
