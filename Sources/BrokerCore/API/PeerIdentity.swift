import BrokerHTTP

/// The `ProcessIdentity` of a connection's peer, read from /proc once per connection and kept in
/// the connection's `ConnectionMemo` for its later requests.
///
/// Once is all there is to learn: the pid is SO_PEERCRED's, captured by the kernel at
/// `connect()` and fixed for the connection's life, so a later request on the same connection
/// cannot name another process. What it does not change: a program that execs another one, or
/// forks and hands the socket to a child, is recorded as the process that connected — and that
/// was already so per request, because the pid stays the connecting one (docs/security.md,
/// "What is logged"). A keep-alive client no longer pays two /proc reads per token.
struct PeerIdentity: Sendable {
    let pid: Int32
    let process: ProcessIdentity
    /// The file it runs and its namespaces: read at the first request for an account with a caller
    /// policy (a stat and two readlinks that the other accounts' callers do not pay for), then kept.
    var running: ExecutableFile? = nil

    /// The identity stored for `connection` when it is `pid`'s, else `resolve(pid)` (stored).
    static func of(
        _ pid: Int32, on connection: ConnectionInfo, resolve: (Int32) -> ProcessIdentity
    ) -> ProcessIdentity {
        connection.memo.value(matching: { (stored: PeerIdentity) in stored.pid == pid }) {
            PeerIdentity(pid: pid, process: resolve(pid))
        }.process
    }

    /// The `ExecutableFile` stored for `connection` when it is `pid`'s, else `read(pid)` (stored
    /// beside the identity). Read later than the identity, so a peer that exec'd another program
    /// meanwhile runs a file that is not the one its recorded path names: refused (fail closed).
    static func running(
        _ pid: Int32, on connection: ConnectionInfo, resolve: (Int32) -> ProcessIdentity, read: (Int32) -> ExecutableFile
    ) -> ExecutableFile {
        let stored = connection.memo.value(matching: { (stored: PeerIdentity) in stored.pid == pid }) {
            PeerIdentity(pid: pid, process: resolve(pid))
        }
        if let running = stored.running { return running }
        let running = read(pid)
        _ = connection.memo.value(matching: { (stored: PeerIdentity) in stored.pid == pid && stored.running != nil }) {
            PeerIdentity(pid: pid, process: stored.process, running: running)
        }
        return running
    }
}
