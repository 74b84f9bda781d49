import Synchronization

/// Idle keep-alive connections per (scheme, host, port, proxy), most recently used first.
///
/// A connection is checked before it is handed out (no EOF or stray bytes pending) and
/// dropped once it has been idle longer than `idleTimeout`, since servers close idle
/// connections themselves and a request sent into a closing one fails.
final class ConnectionPool: Sendable {
    private let idle = Mutex<[ConnectionKey: [ClientConnection]]>([:])
    private let maxIdlePerKey: Int
    private let idleTimeoutNanoseconds: UInt64

    init(maxIdlePerKey: Int, idleTimeout: Duration) {
        self.maxIdlePerKey = maxIdlePerKey
        let (seconds, attoseconds) = idleTimeout.components
        idleTimeoutNanoseconds = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    /// A live idle connection for `key`, or nil. Stale ones met on the way are closed.
    func take(_ key: ConnectionKey) -> ClientConnection? {
        let now = Deadline.monotonicNanoseconds()
        while let candidate = popMostRecent(key) {
            if Self.isFresh(idleSince: candidate.idleSince, now: now, timeout: idleTimeoutNanoseconds) && candidate.isReusable {
                return candidate
            }
        }
        return nil
    }

    /// Idle for no longer than `timeout` at `now`. A connection another thread put back after
    /// `now` was read is newer than `now`: fresh, not a negative age (the unsigned subtraction
    /// trapped and killed the daemon with four logins exchanging codes side by side).
    static func isFresh(idleSince: UInt64, now: UInt64, timeout: UInt64) -> Bool {
        now < idleSince || now - idleSince <= timeout
    }

    /// Gives a connection back after a complete keep-alive exchange.
    func put(_ connection: ClientConnection) {
        guard maxIdlePerKey > 0 else { return }
        connection.idleSince = Deadline.monotonicNanoseconds()
        let evicted: ClientConnection? = idle.withLock { table in
            table[connection.key, default: []].insert(connection, at: 0)
            return table[connection.key]!.count > maxIdlePerKey ? table[connection.key]!.removeLast() : nil
        }
        _ = evicted  // closed here, outside the lock, when the last reference goes
    }

    /// The number of idle connections (for tests and status output).
    var idleCount: Int { idle.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    private func popMostRecent(_ key: ConnectionKey) -> ClientConnection? {
        idle.withLock { table in
            guard var list = table[key], !list.isEmpty else { return nil }
            let first = list.removeFirst()
            table[key] = list.isEmpty ? nil : list
            return first
        }
    }
}
