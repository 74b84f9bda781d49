import WireFormats

/// A parsed absolute http(s) URL as the engine needs it: scheme, host, port, path, query.
///
/// A policy over WireFormats' `AbsoluteURL` (the one URL parser): http or https only, no
/// user-info (`user@host` is a classic phishing shape), no fragment. Used to check endpoints,
/// build discovery URLs and compare redirect URIs. `EndpointURLTests` pins the shapes.
struct EndpointURL: Sendable, Equatable {
    var scheme: String
    /// Host as written, lower-cased, IPv6 literals with their brackets (`[::1]`).
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
        let url: AbsoluteURL
        do throws(URLSyntaxError) {
            url = try AbsoluteURL(text)
        } catch {
            throw fail(Self.reason(error))
        }
        guard url.scheme == "https" || url.scheme == "http" else { throw fail("must use https") }
        guard url.fragment == nil else { throw fail("must not contain a fragment") }
        guard !url.hasUserInfo else { throw fail("must not contain user information") }
        (scheme, host, port) = (url.scheme, url.host.uriText, url.port)
        path = String(url.path)
        query = url.query.map(String.init)
    }

    private static func reason(_ error: URLSyntaxError) -> String {
        switch error {
        case .tooLong(let maximum): "is longer than \(maximum) bytes"
        case .notAbsolute: "is not an absolute URL"
        case .invalidScheme: "must use https"
        case .notVisibleASCII: "contains spaces or non-ASCII characters"
        case .emptyHost: "has no host"
        case .invalidPort: "has an invalid port"
        case .invalidPercentEncoding: "has a % that is not followed by two hex digits"
        case .invalidHost, .unclosedIPv6, .invalidIPv6, .ipv6Zone, .textAfterIPv6: "has an invalid host (\(error))"
        }
    }

    /// True for hosts that never leave this machine: WireFormats' one rule (`Host.isLoopback`).
    var isLoopback: Bool { Host(host)?.isLoopback ?? false }

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
