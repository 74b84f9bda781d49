import Glibc
import Synchronization
import SystemCalls

/// Runs blocking work (getaddrinfo, connect, SSL_read, SQLite, waitpid) on a dedicated detached
/// pthread, so the Swift cooperative pool (as many threads as cores) is never blocked.
public enum BlockingThread {
    /// Starts `body` on a new thread (with `stackSize` bytes of stack, or the default); returns
    /// false when the system refused to create one.
    public static func start(stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) -> Bool {
        DetachedThread.start(stackSize: stackSize, body)
    }

    /// Runs `body` on one of `threads` (a parked thread, else a new one; Dispatch's pool, not the
    /// cooperative one, if the system refuses a thread) and awaits its result. If
    /// the thread has not finished `grace` after `deadline` (a getaddrinfo that ignores our
    /// deadline), the caller gets `onOverrun` instead and the thread's late result is dropped.
    /// The overrun is watched by `watch` (one thread for all requests), not by a task per request.
    static func run<Value: Sendable>(
        deadline: Deadline,
        onOverrun: HTTPClientError,
        grace: Duration = .seconds(1),
        on threads: ConnectionThreadPool,
        watch: OverrunWatch = .shared,
        _ body: @escaping @Sendable () -> Result<Value, HTTPClientError>
    ) async -> Result<Value, HTTPClientError> {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, HTTPClientError>, Never>) in
            let once = ResumeOnce(continuation)
            let graceNanoseconds =
                UInt64(max(0, grace.components.seconds)) * 1_000_000_000
                + UInt64(max(0, grace.components.attoseconds) / 1_000_000_000)
            let watchID = watch.arm(dueNanoseconds: deadline.nanoseconds + graceNanoseconds) {
                once.resume(.failure(onOverrun))
            }
            threads.run {
                once.resume(body())
                if let watchID { watch.cancel(watchID) }
            }
        }
    }
}

/// Resumes a continuation exactly once, whichever of the worker and the watchdog comes first.
private final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: Value) {
        let taken = continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        taken?.resume(returning: value)
    }
}
