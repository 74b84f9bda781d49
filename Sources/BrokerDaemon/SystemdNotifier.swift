#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// sd_notify(3) without libsystemd: one datagram per state change to `$NOTIFY_SOCKET`
/// (a path, or an abstract name when it starts with `@`). Errors are ignored, as sd_notify's
/// callers do: a lost READY=1 shows up as a start-up timeout in systemd, not as a crash here.
public final class SystemdNotifier: Sendable {
    /// The socket address as given (for diagnostics).
    public let address: String
    private let fd: Int32

    /// nil when `NOTIFY_SOCKET` is unset or unusable (not under systemd, or Type≠notify).
    public init?(environment: [String: String]) {
        guard let address = environment["NOTIFY_SOCKET"], address.hasPrefix("/") || address.hasPrefix("@"),
            address.utf8.count < 108
        else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        self.address = address
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends `state` ("READY=1\nSTATUS=…"); true when the datagram was accepted.
    @discardableResult
    public func send(_ state: String) -> Bool {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        var path = Array(address.utf8)
        // Abstract socket: the name starts with a NUL byte and its length is exact (no terminator).
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1))
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), address, length)
            }
        }
        return sent == bytes.count
    }

    /// `MONOTONIC_USEC=` for RELOADING=1 (systemd ≥ 253 wants it with Type=notify-reload).
    static func monotonicMicroseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec) / 1_000
    }

    /// Half the watchdog period when systemd asked for keep-alives (`WATCHDOG_USEC`, and
    /// `WATCHDOG_PID` unset or ours), else nil.
    public static func watchdogInterval(environment: [String: String], processID: Int32 = getpid()) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else {
            return nil
        }
        if let pid = environment["WATCHDOG_PID"], Int32(pid) != processID { return nil }
        return .microseconds(microseconds / 2)
    }
}
