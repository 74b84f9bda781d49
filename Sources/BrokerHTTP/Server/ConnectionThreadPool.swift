import Dispatch
import Synchronization

/// The threads that serve an `HTTPServer`'s connections: a connection runs on a parked thread
/// when one waits, else on a new one; a thread whose connection ended parks for the next instead
/// of exiting, so a client that opens a connection per request (`authctl token`) does not pay a
/// `pthread_create` and a thread exit each time
/// (docs/BENCHMARKS-archive.md, "Token route: identity once per connection, parked threads").
///
/// Bounded: at most `maximumParked` threads wait, each for at most `parkedTimeout` before it
/// exits (an idle daemon keeps no extra threads and no timers); busy threads are bounded by the
/// server's connection caps, which admit a connection before it gets a thread. `close()` (the
/// server's stop) wakes every parked thread to exit, and later work gets a thread of its own.
final class ConnectionThreadPool: Sendable {
    /// One parked thread: its wake-up and the work it is handed (nil: exit).
    private final class Parked: Sendable {
        let wakeUp = DispatchSemaphore(value: 0)
        let work = Mutex<(@Sendable () -> Void)?>(nil)
    }

    private struct State {
        var parked: [Parked] = []
        var closed = false
        /// Threads this pool started, ever (reuse means it does not grow), and those still alive.
        var started = 0
        var alive = 0
    }

    let maximumParked: Int
    let parkedTimeout: Duration
    private let state = Mutex(State())

    init(maximumParked: Int = 8, parkedTimeout: Duration = .seconds(10)) {
        self.maximumParked = maximumParked
        self.parkedTimeout = parkedTimeout
    }

    /// Threads waiting for work now.
    var parkedCount: Int { state.withLock { $0.parked.count } }
    /// Threads started since the pool was made.
    var startedCount: Int { state.withLock { $0.started } }
    /// Threads alive now, parked or busy.
    var aliveCount: Int { state.withLock { $0.alive } }

    /// Runs `body` on a parked thread, else on a new one (on Dispatch's pool if the system
    /// refuses a thread, as `HTTPServer.spawn` does).
    func run(_ body: @escaping @Sendable () -> Void) {
        let parked: Parked? = state.withLock { state in
            if let parked = state.parked.popLast() { return parked }
            state.started += 1
            state.alive += 1
            return nil
        }
        if let parked {
            parked.work.withLock { $0 = body }
            parked.wakeUp.signal()
            return
        }
        let started = BlockingThread.start(stackSize: HTTPServer.threadStackSize) { [self] in
            let parked = Parked()
            var next: (@Sendable () -> Void)? = body
            while let work = next {
                work()
                next = park(parked)
            }
            state.withLock { $0.alive -= 1 }
        }
        if !started {
            state.withLock { state in
                state.started -= 1
                state.alive -= 1
            }
            DispatchQueue.global().async(execute: body)  // not parked: Dispatch's threads are not ours
        }
    }

    /// Wakes every parked thread to exit; threads busy now exit when their connection ends.
    func close() {
        let parked = state.withLock { state in
            state.closed = true
            defer { state.parked.removeAll() }
            return state.parked
        }
        for thread in parked { thread.wakeUp.signal() }  // with no work: exit
    }

    /// Waits for the next work; nil when this thread should exit (pool full or closed, or no
    /// work within `parkedTimeout`).
    private func park(_ parked: Parked) -> (@Sendable () -> Void)? {
        let admitted = state.withLock { state in
            guard !state.closed, state.parked.count < maximumParked else { return false }
            state.parked.append(parked)
            return true
        }
        guard admitted else { return nil }
        if parked.wakeUp.wait(timeout: .now() + parkedTimeout.timeInterval) == .timedOut {
            let stillParked = state.withLock { state in
                guard let index = state.parked.firstIndex(where: { $0 === parked }) else { return false }
                state.parked.remove(at: index)
                return true
            }
            if stillParked { return nil }
            // `run` or `close` took this thread just as the wait timed out: its signal follows.
            parked.wakeUp.wait()
        }
        return parked.work.withLock { work in
            defer { work = nil }
            return work
        }
    }
}
