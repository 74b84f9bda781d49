/// An absolute `http(s)://host[:port]/path?query` URL split for the client: where to connect,
/// what to send as the request target and as `Host`. Fragments are dropped (never sent).
struct ClientURL: Sendable, Hashable {
    enum Scheme: String, Sendable { case http, https }

    var scheme: Scheme
    /// Lowercased host; IPv6 literals without brackets.
    var host: String
    var port: Int
    /// Origin-form request target, "/" when the URL has no path.
    var target: String

    /// `host[:port]` as the Host header wants it (brackets for IPv6, default port omitted).
    var authority: String {
        let shownHost = IPAddress.isIPv6(host) ? "[\(host)]" : host
        return port == defaultPort ? shownHost : "\(shownHost):\(port)"
    }

    var defaultPort: Int { scheme == .https ? 443 : 80 }

    /// Parses and checks `text`. Plain http is refused unless the host is loopback.
    init(_ text: String) throws(HTTPClientError) {
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidURL("URLs must be ASCII without spaces or control characters; percent-encode them")
        }
        // ASCII from here on, so the scheme is compared as bytes (no lower-cased copy of the URL).
        if Self.hasPrefixIgnoringCase(text, "https://") {
            scheme = .https
        } else if Self.hasPrefixIgnoringCase(text, "http://") {
            scheme = .http
        } else {
            throw .invalidURL("only https:// URLs are supported (http:// for loopback hosts)")
        }
        var rest = Substring(text.dropFirst(scheme == .https ? 8 : 7))
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let hostPort = try Self.splitAuthority(rest[..<authorityEnd], defaultPort: scheme == .https ? 443 : 80)
        host = hostPort.host
        port = hostPort.port
        let path = rest[authorityEnd...]
        target = path.hasPrefix("/") ? String(path) : "/" + path
        if scheme == .http && !IPAddress.isLoopback(host) {
            throw .invalidURL("plain http:// is only allowed for loopback hosts; use https://\(authority)")
        }
    }

    /// Whether ASCII `text` starts with lower-case ASCII `prefix`, in any case.
    private static func hasPrefixIgnoringCase(_ text: String, _ prefix: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        return text.utf8.count >= expected.count
            && zip(text.utf8, expected).allSatisfy { $0 | 0x20 == $1 }
    }

    /// Splits `host[:port]` or `[v6]:port`; rejects user info, empty hosts and bad ports.
    static func splitAuthority(_ authority: Substring, defaultPort: Int) throws(HTTPClientError) -> (host: String, port: Int) {
        guard !authority.contains("@") else {
            throw .invalidURL("credentials in the URL are not supported; pass them as client credentials instead")
        }
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL("unterminated [IPv6] host") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL("unexpected text after the [IPv6] host") }
                portPart = after.dropFirst()
            }
            guard IPAddress.isIPv6(String(hostPart)) else { throw .invalidURL("\(hostPart) is not an IPv6 address") }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        let bracketed = authority.hasPrefix("[")
        // The URL is ASCII (checked first): letters and digits are the ASCII ones, tested as bytes.
        let allowed = hostPart.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                true
            case UInt8(ascii: ":"): bracketed
            default: false
            }
        }
        guard !hostPart.isEmpty, allowed else { throw .invalidURL("the URL has no valid host name") }
        guard let portPart else { return (hostPart.lowercased(), defaultPort) }
        guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy(\.isASCII), let port = Int(portPart),
            (1...65535).contains(port)
        else { throw .invalidURL("the port must be a number from 1 to 65535") }
        return (hostPart.lowercased(), port)
    }
}
