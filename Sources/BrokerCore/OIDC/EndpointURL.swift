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
    init(parsing text: String, what: String) throws(OIDCError) {
        func fail(_ why: String) -> OIDCError { .invalidConfiguration("\(what) '\(ProviderText.sanitize(text))' \(why)") }
        let pieces = text.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard pieces.count == 2, !pieces[0].isEmpty else { throw fail("is not an absolute URL") }
        scheme = pieces[0].lowercased()
        guard scheme == "https" || scheme == "http" else { throw fail("must use https") }
        guard !text.contains("#") else { throw fail("must not contain a fragment") }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) else {
            throw fail("contains spaces or non-ASCII characters")
        }
        let rest = pieces[1]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else { throw fail("must not contain user information") }
        var hostPart = authority
        port = nil
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else {
                throw fail("has an invalid port")
            }
            port = number
            hostPart = authority[..<colon]
        }
        guard !hostPart.isEmpty else { throw fail("has no host") }
        host = hostPart.lowercased()
        let pathAndQuery = rest[authorityEnd...]
        if let question = pathAndQuery.firstIndex(of: "?") {
            path = String(pathAndQuery[..<question])
            query = String(pathAndQuery[pathAndQuery.index(after: question)...])
        } else {
            path = String(pathAndQuery)
            query = nil
        }
    }

    /// True for hosts that never leave this machine: 127.0.0.0/8, ::1, localhost.
    var isLoopback: Bool {
        host == "localhost" || host == "[::1]" || host.hasPrefix("127.")
            && host.split(separator: ".").count == 4 && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
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
