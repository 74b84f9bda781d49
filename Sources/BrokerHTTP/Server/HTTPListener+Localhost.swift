import Glibc

extension HTTPListener {
    /// Listeners on 127.0.0.1 *and* [::1] with the same port, for a `localhost` redirect URI.
    ///
    /// A browser may resolve `localhost` to either address (IPv6 first, often). Listening on one
    /// family only would leave the other port free for another local user, who would then receive
    /// the authorization code and `state` (defect found in review). Port 0: the kernel picks the
    /// IPv4 port and the IPv6 socket takes the same one; if that is taken on [::1], both are closed
    /// and a new port is tried (at most `attempts` times). A fixed port: both must be free, or this
    /// throws naming the family that is not. A host without IPv6 (no `::1`, or no AF_INET6 at
    /// all) gets the IPv4 listener only: nobody can bind [::1] there either.
    public static func localhost(port: Int = 0, backlog: Int32 = 64, attempts: Int = 16) throws(HTTPServerError)
        -> [HTTPListener]
    {
        var lastError = HTTPServerError.invalidAddress("localhost")
        for _ in 0..<max(1, attempts) {
            let ipv4 = try tcp(host: "127.0.0.1", port: port, backlog: backlog)
            let bound = ipv4.port ?? port
            do {
                return [ipv4, try tcp(host: "::1", port: bound, backlog: backlog)]
            } catch {
                if Self.hasNoIPv6(error) { return [ipv4] }
                lastError = error
                // Ephemeral: the [::1] side of this port belongs to someone else; try another.
                guard port == 0, case .systemCall(_, EADDRINUSE, _) = error else { break }
            }
        }
        throw lastError
    }

    /// True when the error says the host has no IPv6 loopback to bind (so no one else has either).
    private static func hasNoIPv6(_ error: HTTPServerError) -> Bool {
        guard case .systemCall(_, let code, _) = error else { return false }
        return code == EAFNOSUPPORT || code == EADDRNOTAVAIL || code == EPROTONOSUPPORT
    }
}
