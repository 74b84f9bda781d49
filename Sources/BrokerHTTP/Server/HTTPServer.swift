import Dispatch
import Dispatch
import Glibc
import Synchronization

/// A blocking, thread-per-connection HTTP/1.1 server on an `HTTPListener` (Unix socket or
/// loopback TCP). Measured on this machine as the fastest design (SWIFT-LINUX-NOTES): no busy
/// loops, and no blocking call ever runs on the Swift cooperative pool.
///
/// ```swift
/// let server = HTTPServer.start(listener: try .unix(path: path), handler: router)
/// …
/// await server.stop()
/// ```
///
/// Each connection gets its own thread, which parses requests (keep-alive, pipelining), calls
/// the handler, and writes each response with one `send()`. Malformed input gets its 4xx with
/// `Connection: close`. `stop()` wakes the accept thread, closes idle keep-alive connections and
/// lets in-flight requests finish until `drainTimeout`.
public final class HTTPServer: Sendable {
    struct Registry {
        var nextID: UInt64 = 1
        var connections: [UInt64: ConnectionState] = [:]
    }

    /// What `stop` needs to know about an open connection. `idle` is an atomic rather than
    /// registry state so the per-request hot path takes no lock.
    final class ConnectionState: Sendable {
        let fd: Int32
        /// True while the connection waits for the first byte of its next request.
        let idle = Atomic<Bool>(false)

        init(fd: Int32) { self.fd = fd }
    }

    public let listener: HTTPListener
    let configuration: HTTPServerConfiguration
    let handler: any HTTPHandler
    let registry = Mutex(Registry())
    let stopping = Atomic<Bool>(false)
    /// Entered by the accept thread and every connection thread; `stop` waits on it.
    let running = DispatchGroup()

    private init(listener: HTTPListener, configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
        self.listener = listener
        self.configuration = configuration
        self.handler = handler
    }

    /// Starts accepting connections on `listener` in a dedicated thread.
    public static func start(
        listener: HTTPListener, configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
        handler: any HTTPHandler
    ) -> HTTPServer {
        let server = HTTPServer(listener: listener, configuration: configuration, handler: handler)
        server.running.enter()
        Self.spawn(name: "http-accept") { server.acceptLoop() }
        return server
    }

    /// Number of connections currently open.
    public var connectionCount: Int { registry.withLock { $0.connections.count } }

    /// Stops gracefully: no new connections, idle connections closed, in-flight requests finish
    /// (their responses carry `Connection: close`) until `drainTimeout`, after which the
    /// remaining connections are cut. Returns when every connection thread is done or gave up.
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Self.spawn(name: "http-stop") {
                self.stopBlocking()
                continuation.resume()
            }
        }
    }

    /// `stop()` for callers on a plain thread.
    public func stopBlocking() {
        if stopping.exchange(true, ordering: .sequentiallyConsistent) { return waitForThreads() }
        listener.shutdownListening()
        registry.withLock { registry in
            // Under the lock: a connection closes its fd only after unregistering, so these
            // descriptors cannot have been reused.
            for connection in registry.connections.values where connection.idle.load(ordering: .sequentiallyConsistent) {
                _ = Glibc.shutdown(connection.fd, Int32(SHUT_RDWR))
            }
        }
        waitForThreads()
    }

    private func waitForThreads() {
        if running.wait(timeout: .now() + configuration.drainTimeout.timeInterval) == .success { return }
        registry.withLock { registry in
            for connection in registry.connections.values { _ = Glibc.shutdown(connection.fd, Int32(SHUT_RDWR)) }
        }
        // Threads still inside a slow async handler end when it returns; don't wait forever.
        _ = running.wait(timeout: .now() + 1)
    }

    private func acceptLoop() {
        defer { running.leave() }
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener.fd, $0, &length) }
            }
            if stopping.load(ordering: .acquiring) {
                if fd >= 0 { close(fd) }
                return
            }
            guard fd >= 0 else {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO: continue
                // Out of descriptors or memory: back off instead of spinning.
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: usleep(50_000); continue
                default: return
                }
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            admit(fd, peer: peer(of: fd, address: storage))
        }
    }

    private func peer(of fd: Int32, address: sockaddr_storage) -> ConnectionInfo.Peer {
        let family = Int32(address.ss_family)
        if family == AF_INET || family == AF_INET6 {
            Socket.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            let (text, port) = HTTPListener.peerAddress(address)
            return .tcp(address: text, port: port)
        }
        return .unix(Socket.peerCredentials(fd))
    }

    /// Registers and starts a connection, or answers 503 when at the cap.
    private func admit(_ fd: Int32, peer: ConnectionInfo.Peer) {
        let state = ConnectionState(fd: fd)
        let id: UInt64? = registry.withLock { registry in
            guard registry.connections.count < configuration.maxConnections else { return nil }
            let id = registry.nextID
            registry.nextID += 1
            registry.connections[id] = state
            return id
        }
        guard let id else {
            let response = HTTPResponse.plainText(status: 503, "too many connections; try again later")
            if let bytes = try? response.serialized(keepAlive: false) { Socket.sendWithoutBlocking(fd, bytes) }
            _ = Glibc.shutdown(fd, Int32(SHUT_WR))
            close(fd)
            return
        }
        running.enter()
        let connection = HTTPConnection(server: self, state: state, info: ConnectionInfo(id: id, peer: peer))
        Self.spawn(name: "http-conn") {
            connection.run()
            self.running.leave()
        }
    }

    /// Marks a connection idle; false when the server is stopping (the caller then closes).
    /// Sequentially consistent on both sides: either this sees `stopping`, or `stopBlocking`
    /// sees `idle` and shuts the descriptor down (or both); never neither.
    func markIdle(_ state: ConnectionState) -> Bool {
        state.idle.store(true, ordering: .sequentiallyConsistent)
        return !stopping.load(ordering: .sequentiallyConsistent)
    }

    /// Unregisters and closes, in that order (see `stopBlocking`).
    func finish(_ id: UInt64, fd: Int32) {
        registry.withLock { _ = $0.connections.removeValue(forKey: id) }
        close(fd)
    }

    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// A dedicated pthread per accept loop and connection (blocking I/O never runs on the Swift
    /// cooperative pool). If the system refuses a thread, Dispatch's own pool runs it instead.
    private static func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
        if !BlockingThread.start(stackSize: 512 * 1024, body) {
            DispatchQueue.global().async(execute: body)
        }
    }
}

extension Duration {
    /// Seconds as a TimeInterval (for Dispatch timeouts).
    var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
