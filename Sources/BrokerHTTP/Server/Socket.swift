import Glibc
import SystemCalls

/// Thin wrappers over the Glibc socket calls the servers need. Every failure becomes a thrown
/// `HTTPServerError` carrying errno; nothing here crashes on bad input.
enum Socket {
    /// `struct ucred` is not imported without _GNU_SOURCE (see SWIFT-LINUX-NOTES): same layout.
    struct PeerCred {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
    }

    static func fail(_ call: String, path: String? = nil) -> HTTPServerError {
        .systemCall(call, errno: errno, path: path)
    }

    static func make(family: Int32) throws(HTTPServerError) -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw fail("socket") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }

    /// Runs `body` with a sockaddr_un for `path`.
    static func withUnixAddress<T>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) throws(HTTPServerError) -> T {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else { throw .socketPathTooLong(path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    static func intOption(_ fd: Int32, _ level: Int32, _ name: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, level, name, &value, &length) == 0 ? value : nil
    }

    static func peerCredentials(_ fd: Int32) -> PeerCredentials {
        var credentials = PeerCred()
        var length = socklen_t(MemoryLayout<PeerCred>.size)
        // Failure leaves -1/uid max: the API layer then refuses the peer (fail closed).
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
            return PeerCredentials(pid: -1, uid: .max, gid: .max)
        }
        return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
    }

    /// Writes all of `bytes`; false when the peer is gone. MSG_NOSIGNAL: no SIGPIPE.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            SystemCall.writeAll(raw) { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == nil
        }
    }

    static func setReceiveTimeout(_ fd: Int32, _ timeout: Duration) {
        let (seconds, attoseconds) = timeout.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        if value.tv_sec == 0 && value.tv_usec == 0 { value.tv_usec = 1000 }  // 0 would mean "never"
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    enum WaitResult { case readable, timedOut, failed }

    /// Waits until `fd` is readable (or hung up) for at most `timeout`.
    static func waitReadable(_ fd: Int32, timeout: Duration) -> WaitResult {
        let milliseconds = max(
            0, Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000))
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = SystemCall.retryingInterrupts { poll(&descriptor, 1, max(milliseconds, 1)) }
        return ready > 0 ? .readable : ready == 0 ? .timedOut : .failed
    }

    /// Receives into `buffer`: the count, 0 at end of stream, -1 on error (`errno` EAGAIN when
    /// not `waiting` and nothing is there yet).
    static func receive(_ fd: Int32, into buffer: inout [UInt8], waiting: Bool = true) -> Int {
        let flags = waiting ? Int32(0) : Int32(MSG_DONTWAIT)
        return buffer.withUnsafeMutableBytes { raw in
            SystemCall.retryingInterrupts { recv(fd, raw.baseAddress, raw.count, flags) }
        }
    }

    /// A best-effort answer that never blocks (used on the accept thread for the 503).
    static func sendWithoutBlocking(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in
            _ = send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
    }
}
