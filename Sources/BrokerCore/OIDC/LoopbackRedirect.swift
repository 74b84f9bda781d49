import BrokerHTTP

/// Where the loopback redirect listener binds (RFC 8252 §7.3), before the port is known.
///
/// `port` 0 asks the kernel for an ephemeral port (the default, RFC 8252 §7.3); a fixed port is
/// for providers that register an exact redirect URI. The redirect URI the provider sees is
/// built from the port actually bound (`RedirectURI`).
public struct LoopbackRedirect: Sendable, Equatable, Codable {
    public var host: RedirectURI.Host
    /// 0: ephemeral.
    public var port: Int
    /// Absolute path starting with "/", e.g. "/callback".
    public var path: String

    public init(host: RedirectURI.Host = .ipv4, port: Int = 0, path: String = RedirectURI.defaultPath) {
        self.host = host
        self.port = port
        self.path = path
    }

    /// The addresses to bind, on one port. `localhost` is never resolved (a resolver or hosts-file
    /// change must not move the listener off loopback): it is bound as both 127.0.0.1 and [::1],
    /// because the browser may pick either, and the family left unbound would be free for another
    /// local user to take the port on and receive the code (`HTTPListener.localhost`).
    var bindDescription: String {
        switch host {
        case .ipv4: "127.0.0.1:\(port)"
        case .localhost: "127.0.0.1:\(port) and [::1]:\(port)"
        case .ipv6: "[::1]:\(port)"
        }
    }

    /// Binds the listeners (one, or two for `localhost`).
    func bind() throws(HTTPServerError) -> [HTTPListener] {
        switch host {
        case .ipv4: [try HTTPListener.tcp(host: "127.0.0.1", port: port)]
        case .localhost: try HTTPListener.localhost(port: port)
        case .ipv6: [try HTTPListener.tcp(host: "::1", port: port)]
        }
    }

    /// Checks the settings the way `RedirectURI` will, before anything is bound.
    func validate() throws(OIDCError) {
        guard (0...65535).contains(port) else { throw .invalidConfiguration("redirect port \(port) is out of range") }
        _ = try RedirectURI(host: host, port: 1, path: path)
    }
}
