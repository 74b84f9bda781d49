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

    /// The address to bind: `localhost` is bound as 127.0.0.1 (never resolved: a resolver or
    /// hosts-file change must not move the listener off loopback).
    var bindAddress: String {
        switch host {
        case .ipv4, .localhost: "127.0.0.1"
        case .ipv6: "::1"
        }
    }

    /// Checks the settings the way `RedirectURI` will, before anything is bound.
    func validate() throws(OIDCError) {
        guard (0...65535).contains(port) else { throw .invalidConfiguration("redirect port \(port) is out of range") }
        _ = try RedirectURI(host: host, port: 1, path: path)
    }
}
