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

/// The executable of a process, for the audit log: the target of `/proc/PID/exe`.
public enum ProcessExecutable {
    /// The path, or "unknown" when the process is gone or its /proc entry is not readable to us.
    /// (Linux appends " (deleted)" when the file was replaced since the process started; kept as is.)
    @Sendable public static func path(of pid: Int32) -> String {
        guard pid > 0 else { return "unknown" }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "unknown" }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
