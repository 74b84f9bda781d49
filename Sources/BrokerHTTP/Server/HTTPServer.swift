import Dispatch
import Glibc
import Synchronization
import SystemCalls

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
/// Each connection gets its own thread (a parked one when available: `ConnectionThreadPool`), which parses requests (keep-alive, pipelining), calls
/// the handler, and writes each response with one `send()`. Malformed input gets its 4xx with
/// `Connection: close`. `stop()` wakes the accept thread, closes idle keep-alive connections and
/// lets in-flight requests finish until `drainTimeout`.
public final class HTTPServer: Sendable {
    struct Registry {
        var nextID: UInt64 = 1
        var connections: [UInt64: ConnectionState] = [:]
    }

    /// What `stop` and admission need to know about an open connection. `phase` is an atomic
    /// rather than registry state so the per-request hot path takes no lock.
    final class ConnectionState: Sendable {
        /// Only the connection's thread moves a connection out of `handling`; others (eviction,
        /// stop) only move a waiting connection to `evicted`, by compare-and-exchange, so a
        /// request that is being handled is never cut.
        enum Phase: UInt8 {
            case handling = 0
            /// Waiting for the first byte of its next (or first) request.
            case idle = 1
            /// Part of a request received.
            case receiving = 2
            /// Taken away by eviction or stop: its descriptor was shut down; the thread ends.
            case evicted = 3
        }

        let fd: Int32
        /// The peer uid the per-uid share counts against; nil for TCP peers and the owner.
        let shareUID: UInt32?
        /// The listener it came through on a multiplexed server (nil: the server's own listener).
        let source: ServedListener?
        /// Accepted connections start idle: evictable before their thread even runs.
        private let rawPhase = Atomic<UInt8>(Phase.idle.rawValue)

        init(fd: Int32, shareUID: UInt32?, source: ServedListener? = nil) {
            self.fd = fd
            self.shareUID = shareUID
            self.source = source
        }

        /// Its listener was removed: serve no further request on it.
        var sourceRemoved: Bool { source?.removed.load(ordering: .sequentiallyConsistent) ?? false }

        var phase: Phase { Phase(rawValue: rawPhase.load(ordering: .sequentiallyConsistent)) ?? .evicted }

        /// Moves `from` → `to`; false when the phase was something else (e.g. evicted).
        func move(from: Phase, to: Phase) -> Bool {
            rawPhase.compareExchange(expected: from.rawValue, desired: to.rawValue, ordering: .sequentiallyConsistent).exchanged
        }

    }

    /// The listener `start` was given; nil for a multiplexed server (`multiplexed`), whose
    /// listeners come and go with `add` and `remove`.
    let listener: HTTPListener?
    let configuration: HTTPServerConfiguration
    let handler: any HTTPHandler
    /// A multiplexed server's listeners and the pipe that wakes its acceptor (see HTTPServer+Multiplexed).
    let multiplexer: Multiplexer?
    let registry = Mutex(Registry())
    let stopping = Atomic<Bool>(false)
    /// Entered by the accept thread and every connection thread; `stop` waits on it.
    let running = DispatchGroup()
    /// The threads connections run on (parked between connections).
    let threads = ConnectionThreadPool()

    init(
        listener: HTTPListener?, configuration: HTTPServerConfiguration, handler: any HTTPHandler,
        multiplexer: Multiplexer? = nil
    ) {
        self.listener = listener
        self.configuration = configuration
        self.handler = handler
        self.multiplexer = multiplexer
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
        listener?.shutdownListening()
        multiplexer?.stop()
        registry.withLock { registry in
            // Under the lock: a connection closes its fd only after unregistering, so these
            // descriptors cannot have been reused.
            for connection in registry.connections.values where connection.move(from: .idle, to: .evicted) {
                _ = Glibc.shutdown(connection.fd, Int32(SHUT_RDWR))
            }
        }
        threads.close()
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
        guard let listener else { return }
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = SystemCall.retryingInterrupts {
                withUnsafeMutablePointer(to: &storage) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener.fd, $0, &length) }
                }
            }
            if stopping.load(ordering: .acquiring) {
                if fd >= 0 { close(fd) }
                return
            }
            guard fd >= 0 else {
                switch errno {
                case ECONNABORTED, EPROTO: continue
                // Out of descriptors or memory: back off instead of spinning.
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    usleep(50_000)
                    continue
                default: return
                }
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            admit(fd, peer: peer(of: fd, address: storage), handler: handler, source: nil)
        }
    }

    /// Marks a connection idle; false when the server is stopping (the caller then closes).
    /// Sequentially consistent on both sides: either this sees `stopping`, or `stopBlocking`
    /// sees `idle` and shuts the descriptor down (or both); never neither.
    /// Also false when the connection was evicted.
    func markIdle(_ state: ConnectionState) -> Bool {
        guard state.phase == .idle || state.move(from: .handling, to: .idle) else { return false }
        return !stopping.load(ordering: .sequentiallyConsistent) && !state.sourceRemoved
    }

    /// Unregisters and closes, in that order (see `stopBlocking`).
    func finish(_ id: UInt64, fd: Int32) {
        registry.withLock { _ = $0.connections.removeValue(forKey: id) }
        close(fd)
    }

    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    static let threadStackSize = 512 * 1024

    /// A dedicated pthread for the accept loop and for `stop` (blocking I/O never runs on the Swift
    /// cooperative pool; connections run on `threads`). If the system refuses a thread,
    /// Dispatch's own pool runs it instead.
    static func spawn(name: String, _ body: @escaping @Sendable () -> Void) {
        if !BlockingThread.start(stackSize: threadStackSize, body) {
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
