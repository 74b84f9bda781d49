import Foundation
import Synchronization
import SystemCalls

/// A TCP listening socket on 127.0.0.1 with an ephemeral port, plus the small blocking socket
/// helpers the test servers share. Accepts wait in `poll` with a short timeout so the accept
/// thread notices `stop()` and its own lifetime limit: a test server always stops by itself.
public final class LoopbackListener: Sendable {
    public let fd: Int32
    public let port: Int
    private let stopped = Atomic<Bool>(false)
    private let deadline: ContinuousClock.Instant

    /// Binds 127.0.0.1:0 and listens. `lifetime` bounds how long the listener accepts.
    public init(lifetime: Duration) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        deadline = .now + lifetime
    }

    deinit { close(fd) }

    public var isStopped: Bool { stopped.load(ordering: .acquiring) || ContinuousClock.now >= deadline }

    public func stop() { stopped.store(true, ordering: .releasing) }

    /// Runs `handle` on a new thread for every accepted connection until the listener stops.
    /// Accepted sockets get a 30 s receive timeout (the listener's default lifetime) so no handler
    /// thread can hang forever, yet a keep-alive connection survives a loaded machine's pauses.
    public func acceptLoop(_ handle: @escaping @Sendable (Int32) -> Void) {
        Thread.detachNewThread { [self] in
            while !isStopped {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 50) > 0 else { continue }
                let client = accept(fd, nil, nil)
                guard client >= 0 else { continue }
                Self.setReceiveTimeout(client, seconds: 30)
                Thread.detachNewThread {
                    BrokenPipe.blockOnThisThread()  // a TLS server's write to a client that left
                    handle(client)
                }
            }
        }
    }

    public static func setReceiveTimeout(_ fd: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends all of `bytes` on a blocking socket; false when the peer went away.
    @discardableResult
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// A port on 127.0.0.1 that nothing listens on (bound, then closed): connecting is refused.
    public static func closedPort() throws -> Int {
        try LoopbackListener(lifetime: .seconds(1)).port
    }
}
