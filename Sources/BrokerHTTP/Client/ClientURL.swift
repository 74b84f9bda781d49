import WireFormats

/// An absolute `http(s)://host[:port]/path?query` URL split for the client: where to connect,
/// what to send as the request target and as `Host`. Fragments are dropped (never sent).
/// A policy over WireFormats' `AbsoluteURL`: http(s) only, no credentials, a host name the
/// resolver takes (letters, digits, `-`, `.`, `_`) or an IP literal, plain http only to loopback.
struct ClientURL: Sendable, Hashable {
    enum Scheme: String, Sendable { case http, https }

    var scheme: Scheme
    /// Lowercased host; IPv6 literals without brackets.
    var host: String
    var hostIsLoopback: Bool
    /// `host` as a URL writes it (IPv6 in brackets).
    var hostURIText: String
    var port: Int
    /// Origin-form request target, "/" when the URL has no path.
    var target: String
    /// `host[:port]` as the Host header wants it (brackets for IPv6, default port omitted).
    var authority: String

    var defaultPort: Int { scheme == .https ? 443 : 80 }

    /// Parses and checks `text`. Plain http is refused unless the host is loopback.
    init(_ text: String) throws(HTTPClientError) {
        let url: AbsoluteURL
        do throws(URLSyntaxError) {
            url = try AbsoluteURL(text)
        } catch {
            throw .invalidURL(Self.reason(error))
        }
        switch url.scheme {
        case "https": scheme = .https
        case "http": scheme = .http
        default: throw .invalidURL("only https:// URLs are supported (http:// for loopback hosts)")
        }
        guard !url.hasUserInfo else {
            throw .invalidURL("credentials in the URL are not supported; pass them as client credentials instead")
        }
        guard url.host.kind != .name || url.host.text.utf8.allSatisfy(Self.isResolvableNameByte) else {
            throw .invalidURL("the URL has no valid host name")
        }
        host = url.host.text
        hostIsLoopback = url.host.isLoopback
        hostURIText = url.host.uriText
        port = url.port ?? (scheme == .https ? 443 : 80)
        authority =
            url.port == nil || url.port == (scheme == .https ? 443 : 80) ? url.host.uriText : url.host.uriText + ":\(port)"
        let path = url.path
        target = (path.isEmpty ? "/" : String(path)) + (url.query.map { "?" + $0 } ?? "")
        if scheme == .http && !hostIsLoopback {
            throw .invalidURL("plain http:// is only allowed for loopback hosts; use https://\(authority)")
        }
    }

    private static func reason(_ error: URLSyntaxError) -> String {
        switch error {
        case .notVisibleASCII: "URLs must be ASCII without spaces or control characters; percent-encode them"
        case .notAbsolute, .invalidScheme: "only https:// URLs are supported (http:// for loopback hosts)"
        case .emptyHost, .invalidHost: "the URL has no valid host name"
        case .invalidPort: "the port must be a number from 1 to 65535"
        default: "the URL cannot be used: \(error)"
        }
    }

    /// What getaddrinfo resolves as a name (the URL is ASCII by then): letters, digits, `-`, `.`, `_`.
    static func isResolvableNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
