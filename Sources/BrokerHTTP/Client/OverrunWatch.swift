import Dispatch
import Synchronization

/// Runs an action when blocking work outlives its deadline, from one thread for the process.
///
/// `BlockingThread.run` used a task per request that slept until the deadline and was cancelled
/// when the work finished: each request started a task on the cooperative pool, armed a Dispatch
/// timer (a wake-up of Dispatch's timer thread) and woke the pool again to cancel it — three
/// wake-ups beside every token request, on 2 cores where the refresh waits for a core
/// (docs/BENCHMARKS-archive.md, "Forced refresh: wake-ups and parsing"). Here arming is a lock and a dictionary
/// insert, and cancelling a removal: the thread is woken only when an entry is due earlier than the time it
/// already sleeps until (or it sleeps with nothing to wait for), so requests that follow each other with the
/// same timeout never wake it, and it never wakes for a cancelled entry.
final class OverrunWatch: Sendable {
    /// The watch `BlockingThread.run` uses.
    static let shared = OverrunWatch()

    private struct Entry {
        let dueNanoseconds: UInt64
        let action: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        var started = false
        /// When the thread wakes next by itself (monotonic ns); nil: it waits for a signal only.
        var wakesAt: UInt64?
    }

    private let state = Mutex(State())
    private let wakeUp = DispatchSemaphore(value: 0)

    /// Runs `action` on the watch's thread once the monotonic clock passes `dueNanoseconds`,
    /// unless `cancel` is called with the returned id before. Returns nil when no thread could be
    /// started (then nothing will fire: the caller's work must end by itself).
    func arm(dueNanoseconds: UInt64, _ action: @escaping @Sendable () -> Void) -> UInt64? {
        let (id, start, signal) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.entries[id] = Entry(dueNanoseconds: dueNanoseconds, action: action)
            let start = !state.started
            state.started = true
            let signal = !start && state.wakesAt.map { dueNanoseconds < $0 } ?? true
            if signal { state.wakesAt = dueNanoseconds }  // later arms need not signal again
            return (id, start, signal)
        }
        if start {
            // Small stack: the thread only compares deadlines and calls the actions.
            guard BlockingThread.start(stackSize: 128 * 1024, { [self] in run() }) else {
                state.withLock { state in
                    state.started = false
                    state.entries[id] = nil
                }
                return nil
            }
        } else if signal {
            wakeUp.signal()
        }
        return id
    }

    /// Forgets entry `id` (a no-op once it fired). Never wakes the thread.
    func cancel(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    private func run() {
        while true {
            let now = Deadline.monotonicNanoseconds()
            let (due, next) = state.withLock { state in
                let due = state.entries.filter { $0.value.dueNanoseconds <= now }
                for id in due.keys { state.entries[id] = nil }
                let next = state.entries.values.lazy.map(\.dueNanoseconds).min()
                state.wakesAt = next
                return (due.values.map(\.action), next)
            }
            for action in due { action() }
            if let next {
                // An arm that signalled between the lock and this wait is not lost: the semaphore counts.
                let current = Deadline.monotonicNanoseconds()
                let remaining = next > current ? next - current : 0
                _ = wakeUp.wait(timeout: .now() + .nanoseconds(Int(clamping: remaining)))
            } else {
                wakeUp.wait()
            }
        }
    }
}
