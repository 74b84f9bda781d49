import Glibc
import Synchronization
import SystemCalls

/// Closes a refused connection (the 403 to another uid, the 503 at a cap) "lingering", off the
/// accept path: closing a socket whose peer's request is still unread makes the peer's read fail
/// (ECONNRESET) before it sees the answer, so curl reported a connection error instead of the 403
/// in about 4 of 10 tries. The answer is sent and the write side shut down by the caller; here the
/// peer's bytes are read and dropped until it closes, for at most `maximumBytes` and `lingerTime`.
///
/// Bounded so a refused uid cannot use it to hold anything: one thread (started at the first
/// refusal, then blocked in poll(2) with no timeout while nothing lingers) serves every lingering
/// connection; at most `maximumConnections` linger at once and any beyond are closed at once (the
/// old behaviour). A lingering connection holds no connection slot and no thread of its own.
final class LingeringCloser: Sendable {
    static let shared = LingeringCloser()

    /// Connections lingering at once; more are closed without lingering.
    static let maximumConnections = 32
    /// Bytes read and dropped per connection before it is closed anyway.
    static let maximumBytes = 4096
    /// The longest a connection lingers.
    static let lingerTime: Duration = .milliseconds(200)

    private struct Lingering {
        let fd: Int32
        let deadline: ContinuousClock.Instant
        var drained = 0
    }

    private struct State {
        var pending: [Lingering] = []
        /// Connections handed over and not closed yet (pending or in the thread's list).
        var held = 0
        var started = false
    }

    private let state = Mutex(State())
    /// This closer's bounds (the statics above, except in tests).
    let maximumConnections: Int
    let maximumBytes: Int
    let lingerTime: Duration
    /// The thread's wake-up: a byte written here makes it pick up `pending`. Never closed (the
    /// closer lives as long as the process).
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init(
        maximumConnections: Int = LingeringCloser.maximumConnections, maximumBytes: Int = LingeringCloser.maximumBytes,
        lingerTime: Duration = LingeringCloser.lingerTime
    ) {
        self.maximumConnections = maximumConnections
        self.maximumBytes = maximumBytes
        self.lingerTime = lingerTime
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
        }
        wakeRead = fds[0]
        wakeWrite = fds[1]
    }

    /// Takes `fd` (answered; its write side is shut down here) and closes it once its peer is done
    /// or the bounds are reached; at once when `maximumConnections` already linger.
    func close(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        let (accepted, start) = state.withLock { state -> (Bool, Bool) in
            guard wakeRead >= 0, state.held < maximumConnections else { return (false, false) }
            state.held += 1
            state.pending.append(Lingering(fd: fd, deadline: .now + lingerTime))
            defer { state.started = true }
            return (true, !state.started)
        }
        guard accepted else {
            Glibc.close(fd)
            return
        }
        if start, !BlockingThread.start(stackSize: 128 * 1024, { self.run() }) {
            // No thread: close what waits, and try again at the next refusal.
            let waiting = state.withLock { state in
                defer {
                    state.held -= state.pending.count
                    state.pending.removeAll()
                    state.started = false
                }
                return state.pending
            }
            for connection in waiting { Glibc.close(connection.fd) }
            return
        }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Connections lingering now (for tests).
    var count: Int { state.withLock { $0.held } }

    private func run() {
        var lingering: [Lingering] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        var fds: [pollfd] = []
        while true {
            lingering += state.withLock { state in
                defer { state.pending.removeAll() }
                return state.pending
            }
            fds.removeAll(keepingCapacity: true)
            fds.append(pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0))
            for connection in lingering { fds.append(pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)) }
            var timeout: Int32 = -1
            if let earliest = lingering.map(\.deadline).min() {
                let left = earliest - .now
                let milliseconds = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
                timeout = Int32(clamping: max(0, milliseconds))
            }
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 && errno != EINTR { usleep(10_000) }
            if fds[0].revents != 0 {
                while read(wakeRead, &buffer, buffer.count) > 0 {}
            }
            let now = ContinuousClock.now
            var closed = 0
            var index = 0
            while index < lingering.count {
                var done = now >= lingering[index].deadline
                if !done, fds[index + 1].revents != 0 {
                    let count = buffer.withUnsafeMutableBytes { raw in
                        SystemCall.retryingInterrupts {
                            recv(lingering[index].fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT))
                        }
                    }
                    if count > 0 {
                        lingering[index].drained += count
                        done = lingering[index].drained >= maximumBytes
                    } else {
                        done = count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
                    }
                }
                if done {
                    Glibc.close(lingering[index].fd)
                    closed += 1
                    // Keep `fds` aligned with `lingering` for the rest of this pass.
                    lingering.remove(at: index)
                    fds.remove(at: index + 1)
                } else {
                    index += 1
                }
            }
            if closed > 0 { state.withLock { $0.held -= closed } }
        }
    }
}
