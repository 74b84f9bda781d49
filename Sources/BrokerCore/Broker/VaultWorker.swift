import BrokerHTTP
import BrokerStore
import Dispatch
import Glibc
import Synchronization

/// Owns the `Vault` on ONE dedicated thread and runs jobs on it in submission order.
///
/// The vault is synchronous (SQLite, an fsync per commit) and not Sendable, so it never touches the
/// cooperative pool: `perform` hands a closure to the worker thread and awaits its result. Jobs run
/// strictly FIFO, which the broker relies on: a `saveTokens` submitted before a `deleteTokens` commits
/// before it, whatever the awaiting callers do meanwhile.
final class VaultWorker: Sendable {
    /// The vault and the queue, behind one lock. The vault itself is only ever *used* on the worker
    /// thread; the lock only guards the hand-over of jobs.
    private let queue = Mutex<(jobs: [@Sendable (Vault) -> Void], stopped: Bool)>(([], false))
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(vault: sending Vault) {
        let box = VaultBox(vault)
        let started = BlockingThread.start { [self] in run(box) }
        precondition(started, "cannot start the vault thread: the system is out of threads")
    }

    /// Runs `body` with the vault on the worker thread and returns its result.
    func perform<T: Sendable>(_ body: @escaping @Sendable (Vault) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let accepted = submit { vault in continuation.resume(with: Result { try body(vault) }) }
            if !accepted { continuation.resume(throwing: VaultWorkerError.stopped) }
        }
    }

    /// Queues `body` without waiting for it (ordered after everything submitted before). Errors are
    /// passed to `onError` on the worker thread.
    func enqueue(_ body: @escaping @Sendable (Vault) throws -> Void, onError: @escaping @Sendable (any Error) -> Void) {
        _ = submit { vault in
            do { try body(vault) } catch { onError(error) }
        }
    }

    /// Queues `body` like `enqueue`, and passes its outcome (nil: success) to `completion` on the
    /// worker thread; `completion` gets `VaultWorkerError.stopped` when the worker no longer runs jobs.
    func enqueueReporting(
        _ body: @escaping @Sendable (Vault) throws -> Void, completion: @escaping @Sendable ((any Error)?) -> Void
    ) {
        let accepted = submit { vault in
            do {
                try body(vault)
                completion(nil)
            } catch {
                completion(error)
            }
        }
        if !accepted { completion(VaultWorkerError.stopped) }
    }

    /// Finishes every queued job, then stops the thread (the vault is closed with it).
    func stop() async {
        let alreadyStopped = queue.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        guard !alreadyStopped else { return }
        wakeUp.signal()
        // Waiting on a semaphore blocks: do it on a throwaway thread, never on the pool.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let started = BlockingThread.start { [finished] in
                finished.wait()
                continuation.resume()
            }
            if !started { continuation.resume() }
        }
    }

    /// Jobs submitted and not yet started (tests order their own jobs with it).
    var queuedJobs: Int { queue.withLock { $0.jobs.count } }

    private func submit(_ job: @escaping @Sendable (Vault) -> Void) -> Bool {
        let accepted = queue.withLock { state in
            guard !state.stopped else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { wakeUp.signal() }
        return accepted
    }

    private func run(_ box: VaultBox) {
        while true {
            wakeUp.wait()
            let (jobs, stopped) = queue.withLock { state in
                defer { state.jobs = [] }
                return (state.jobs, state.stopped)
            }
            for job in jobs { job(box.vault) }
            if stopped, queue.withLock({ $0.jobs.isEmpty }) { break }
        }
        box.release()
        finished.signal()
    }
}

/// Carries the non-Sendable vault to the worker thread.
///
/// `@unchecked Sendable` is sound: the box is created in `VaultWorker.init` from a `sending` vault (no
/// other reference exists) and from then on only the worker thread reads `vault` or calls `release`.
private final class VaultBox: @unchecked Sendable {
    private(set) var vault: Vault!
    init(_ vault: Vault) { self.vault = vault }
    func release() { vault = nil }
}

enum VaultWorkerError: Error, CustomStringConvertible {
    case stopped
    var description: String { "the token store is shut down" }
}
