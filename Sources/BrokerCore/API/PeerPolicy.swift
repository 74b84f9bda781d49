import BrokerHTTP
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Who may use the socket API: the daemon's own uid, plus uids explicitly allowed in system mode
/// (`--allow-uid`). Checked on every request from the kernel's SO_PEERCRED credentials, which a
/// client cannot forge; a connection without credentials (TCP) is never allowed.
public struct PeerPolicy: Sendable, Equatable {
    public var daemonUID: UInt32
    public var allowedUIDs: Set<UInt32>

    public init(daemonUID: UInt32 = getuid(), allowedUIDs: Set<UInt32> = []) {
        self.daemonUID = daemonUID
        self.allowedUIDs = allowedUIDs
    }

    /// The peer's credentials when it may be served, nil when it must be refused.
    public func admit(_ connection: ConnectionInfo) -> PeerCredentials? {
        guard let credentials = connection.credentials else { return nil }
        guard credentials.uid == daemonUID || allowedUIDs.contains(credentials.uid) else { return nil }
        return credentials
    }
}

/// Remembers when a refusal of each uid was last logged, so a client hammering the socket with
/// forbidden requests cannot flood the log (one line per uid per `interval`).
final class RefusalThrottle: Sendable {
    private let lastLogged = Mutex<[UInt32: Double]>([:])
    private let interval: Double

    init(interval: Double = 60) {
        self.interval = interval
    }

    /// True when a refusal of `uid` at `now` should be logged.
    func shouldLog(uid: UInt32, now: Double) -> Bool {
        lastLogged.withLock { last in
            if let previous = last[uid], now - previous < interval { return false }
            // Bounded: forget everyone when too many distinct uids were seen.
            if last.count >= 1024 { last.removeAll() }
            last[uid] = now
            return true
        }
    }
}
