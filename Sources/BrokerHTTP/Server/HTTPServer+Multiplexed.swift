import Dispatch
import Glibc
import Synchronization
import SystemCalls
import WireFormats

/// One listener of a multiplexed server: its handler, and its connections (so `remove` can end them).
public final class ServedListener: Sendable {
    let key: UInt64
    /// The listener until the acceptor lets go of it (`release`): only the acceptor polls and
    /// accepts on its descriptor, so only it closes it, between two polls — never under a poll.
    private let slot: Mutex<HTTPListener?>
    let handler: any HTTPHandler
    /// Entered by each of its connections while it runs.
    let connections = DispatchGroup()
    /// Set by `remove`: its connections serve no further request.
    let removed = Atomic<Bool>(false)
    /// Signalled once the listener is released (its descriptor closed, its file unlinked).
    let released = DispatchSemaphore(value: 0)

    init(key: UInt64, listener: HTTPListener, handler: any HTTPHandler) {
        self.key = key
        self.slot = Mutex(listener)
        self.handler = handler
    }

    /// The listening descriptor, nil once released.
    var fd: Int32? { slot.withLock { $0?.fd } }

    /// Drops the listener (closing it) and signals `released`, once.
    func release() {
        let listener = slot.withLock { slot in
            defer { slot = nil }
            return slot
        }
        guard listener != nil else { return }
        withExtendedLifetime(listener) {}
        released.signal()
    }
}

extension HTTPServer {
    /// A multiplexed server's listeners, and the pipe that wakes its acceptor when they change.
    final class Multiplexer: Sendable {
        struct State {
            var nextKey: UInt64 = 1
            var listeners: [UInt64: ServedListener] = [:]
            /// Removed, for the acceptor to release at its next pass.
            var retired: [ServedListener] = []
            var stopped = false
            /// False once the acceptor has exited: then `remove` releases a listener itself.
            var acceptorRunning = true
        }

        let state = Mutex(State())
        let wakeRead: Int32
        let wakeWrite: Int32

        init() throws(HTTPServerError) {
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else { throw Socket.fail("pipe") }
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
            wakeRead = fds[0]
            wakeWrite = fds[1]
        }

        deinit {
            Glibc.close(wakeRead)
            Glibc.close(wakeWrite)
        }

        func wake() {
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }

        /// Every listener goes; the acceptor wakes, releases them and exits.
        func stop() {
            let all = state.withLock { state in
                state.stopped = true
                state.retired += state.listeners.values
                defer { state.listeners.removeAll() }
                return Array(state.listeners.values)
            }
            for served in all { served.removed.store(true, ordering: .sequentiallyConsistent) }
            wake()
        }
    }

    /// A server without a listener of its own: `add` gives it listeners, each with its own
    /// handler, and one thread accepts on all of them (poll(2)), handing connections to the same
    /// connection slots and threads. The daemon's restricted sockets run on one such server, so
    /// their count costs a descriptor each, not a thread each, and their connections share one
    /// bounded set of slots (`configuration`'s caps).
    public static func multiplexed(configuration: HTTPServerConfiguration = HTTPServerConfiguration())
        throws(HTTPServerError) -> HTTPServer
    {
        let server = HTTPServer(
            listener: nil, configuration: configuration, handler: RefusingHandler(), multiplexer: try Multiplexer())
        server.running.enter()
        Self.spawn(name: "http-multiplex") { server.multiplexLoop() }
        return server
    }

    /// Starts accepting on `listener` (made non-blocking) with `handler`; nil when the server is
    /// stopping or not multiplexed.
    public func add(_ listener: HTTPListener, handler: any HTTPHandler) -> ServedListener? {
        guard let multiplexer, listener.fd >= 0 else { return nil }
        _ = fcntl(listener.fd, F_SETFL, fcntl(listener.fd, F_GETFL) | O_NONBLOCK)
        let served: ServedListener? = multiplexer.state.withLock { state in
            guard !state.stopped, state.acceptorRunning else { return nil }
            let served = ServedListener(key: state.nextKey, listener: listener, handler: handler)
            state.nextKey += 1
            state.listeners[served.key] = served
            return served
        }
        multiplexer.wake()
        return served
    }

    /// Stops accepting on `served`, ends its connections that wait for or are receiving a request
    /// at once (no request completed after this is served through it) and the others after the
    /// request they are in (answered with `Connection: close`), waiting for them up to
    /// `drainTimeout`, after which they are cut. The acceptor closes the listener (and unlinks
    /// its file) at its next pass, between two polls; this waits for that too.
    public func remove(_ served: ServedListener) async {
        guard let multiplexer else { return }
        served.removed.store(true, ordering: .sequentiallyConsistent)
        let acceptorRunning = multiplexer.state.withLock { state in
            if state.listeners.removeValue(forKey: served.key) != nil { state.retired.append(served) }
            return state.acceptorRunning
        }
        if acceptorRunning { multiplexer.wake() } else { served.release() }
        let mine: @Sendable (ConnectionState) -> Bool = { $0.source === served }
        registry.withLock { registry in
            for connection in registry.connections.values where mine(connection) {
                if connection.move(from: .idle, to: .evicted) || connection.move(from: .receiving, to: .evicted) {
                    _ = Glibc.shutdown(connection.fd, Int32(SHUT_RDWR))
                }
            }
        }
        let drain = configuration.drainTimeout.timeInterval
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Self.spawn(name: "http-remove") {
                // The acceptor releases it at its next pass (it only waits in poll, woken above).
                _ = served.released.wait(timeout: .now() + drain)
                if served.connections.wait(timeout: .now() + drain) == .timedOut {
                    self.registry.withLock { registry in
                        for connection in registry.connections.values where mine(connection) {
                            _ = Glibc.shutdown(connection.fd, Int32(SHUT_RDWR))
                        }
                    }
                }
                continuation.resume()
            }
        }
    }

    /// Listeners a multiplexed server accepts on now.
    public var listenerCount: Int { multiplexer?.state.withLock { $0.listeners.count } ?? (listener == nil ? 0 : 1) }

    /// The acceptor: poll(2) on the wake-up pipe and every listener, accept one connection from
    /// each ready listener per pass (level-triggered: a busy one is seen again at once).
    private func multiplexLoop() {
        defer { running.leave() }
        guard let multiplexer else { return }
        defer {
            let left = multiplexer.state.withLock { state in
                state.acceptorRunning = false
                defer { state.retired.removeAll() }
                return state.retired + state.listeners.values
            }
            for served in left { served.release() }
        }
        var drain = [UInt8](repeating: 0, count: 64)
        var fds: [pollfd] = []
        while !stopping.load(ordering: .acquiring) {
            let (served, retired) = multiplexer.state.withLock { state in
                defer { state.retired.removeAll() }
                return (state.listeners.values.sorted { $0.key < $1.key }, state.retired)
            }
            // Not polling now: the retired listeners' descriptors can close.
            for item in retired { item.release() }
            var polled: [(ServedListener, Int32)] = []
            for item in served { if let fd = item.fd { polled.append((item, fd)) } }
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: multiplexer.wakeRead, events: Int16(POLLIN), revents: 0))
            for (_, fd) in polled { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), -1)
            if ready < 0 {
                if errno != EINTR { usleep(50_000) }
                continue
            }
            if fds[0].revents != 0 {
                while read(multiplexer.wakeRead, &drain, drain.count) > 0 {}
            }
            if stopping.load(ordering: .acquiring) { return }
            for (index, (item, fd)) in polled.enumerated() where fds[index + 1].revents != 0 {
                if item.removed.load(ordering: .sequentiallyConsistent) { continue }
                accept(on: item, fd: fd, multiplexer: multiplexer)
            }
        }
    }

    /// `fd` is `served`'s listener, held open: only this thread releases it.
    private func accept(on served: ServedListener, fd listening: Int32, multiplexer: Multiplexer) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = SystemCall.retryingInterrupts {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listening, $0, &length) }
            }
        }
        guard fd >= 0 else {
            switch errno {
            case EAGAIN, EWOULDBLOCK, ECONNABORTED, EPROTO: return
            // Out of descriptors or memory: back off instead of spinning.
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: usleep(50_000)
            // The listener is unusable (e.g. shut down): stop polling it rather than spin.
            default:
                multiplexer.state.withLock { state in
                    if state.listeners.removeValue(forKey: served.key) != nil { state.retired.append(served) }
                }
            }
            return
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        admit(fd, peer: peer(of: fd, address: storage), handler: served.handler, source: served)
    }
}

/// The handler of a multiplexed server itself: never used (each listener has its own).
private struct RefusingHandler: HTTPHandler {
    func handle(_ request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        .plainText(status: 404, "not found")
    }
}
