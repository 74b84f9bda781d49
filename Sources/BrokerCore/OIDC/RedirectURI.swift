import BrokerProtocol

/// The redirect URI of a native app: loopback (RFC 8252 §7.3, `http://127.0.0.1:<port>/<path>`) or,
/// with `privateUse`, a private-use scheme (§7.1).
///
/// The port is the one the listener actually bound (ephemeral unless fixed); the provider must
/// accept any port for loopback redirects, as RFC 8252 §7.3 requires.
public struct RedirectURI: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The loopback host name used in the URI. 127.0.0.1 is the RFC 8252 recommendation;
    /// some providers only register `localhost`.
    public enum Host: String, Sendable, Codable, CaseIterable {
        case ipv4 = "127.0.0.1"
        case localhost = "localhost"
        case ipv6 = "[::1]"
    }

    public var host: Host
    public var port: Int
    /// Absolute path starting with "/", e.g. "/callback".
    public var path: String

    /// Set for a private-use scheme redirect (RFC 8252 §7.1): the URI is exactly this one, and the
    /// loopback fields above are unused (there is no listener).
    public private(set) var privateUse: PrivateUseRedirectURI?

    public static let defaultPath = "/callback"

    /// A private-use scheme redirect, already validated by its parser.
    public init(privateUse: PrivateUseRedirectURI) {
        (host, port, path) = (.ipv4, 0, privateUse.path)
        self.privateUse = privateUse
    }

    public init(host: Host = .ipv4, port: Int, path: String = RedirectURI.defaultPath) throws(OIDCError) {
        guard (1...65535).contains(port) else { throw .invalidConfiguration("redirect port \(port) is out of range") }
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#"),
            path.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
        else { throw .invalidConfiguration("redirect path must start with '/' and contain no query, fragment or spaces") }
        self.host = host
        self.port = port
        self.path = path
    }

    public var description: String { privateUse?.description ?? "http://\(host.rawValue):\(port)\(path)" }
}
