import Dispatch
import Synchronization

/// A task executor that runs jobs on the connection thread that waits for them.
///
/// Bridging a request to the async handler with a plain `Task` costs two thread hops (to the
/// cooperative pool and back) per request, which halved throughput with many clients. With this
/// executor as the task's preference, the handler's code runs on the connection thread itself;
/// it leaves only for actors (which run on their own executors) and comes back here after.
final class ConnectionExecutor: TaskExecutor, Sendable {
    private let jobs = Mutex<[UnownedJob]>([])
    private let wakeUp = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        wakeUp.signal()
    }

    /// Runs `operation` as a task preferring this executor and executes its jobs on the calling
    /// thread until it finishes. The caller must be a dedicated thread, never the pool.
    func run<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
        let result = Mutex<T?>(nil)
        Task(executorPreference: self) {
            let value = await operation()
            result.withLock { $0 = value }
            self.wakeUp.signal()
        }
        while true {
            wakeUp.wait()
            while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
            if let value = result.withLock({ $0 }) { return value }
        }
    }
}
