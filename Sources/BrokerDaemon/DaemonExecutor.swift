@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import BrokerHTTP
import Glibc
import Synchronization
import SystemCalls

/// The daemon's default executor for Swift concurrency, installed by `install()` before any task
/// starts: up to `width` worker threads (one per CPU, at least two, started when work first
/// needs them) that sleep on a condition variable while there is nothing to run, and one timer
/// thread that sleeps in `read` on a CLOCK_BOOTTIME timerfd armed for the earliest delayed job.
///
/// Why not libdispatch's pool, the default on Linux: its internal workqueue arms a one-second
/// timer on its manager thread when the first worker starts and never disarms it, so an idle
/// daemon woke 60 times a minute although nothing of ours was due (docs/BENCHMARKS.md, "Daemon
/// idle"). Here an idle daemon sleeps until its next refresh timer. CLOCK_BOOTTIME, as
/// `ContinuousClock` on Linux: a sleep across a suspend fires at resume, not a suspend later.
///
/// What it leaves out, on purpose: task priorities (jobs run first in, first out — the daemon
/// gives none) and timer tolerances. A sleep on a clock whose durations are not `Duration` runs at
/// once (the daemon sleeps only on `ContinuousClock`). Uses the toolchain's experimental
/// executor-factory SPI (Swift 6.3); `SWIFT-LINUX-NOTES` says how to check it on a new toolchain.
final class DaemonExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    /// The executor `install()` made the default, if any.
    nonisolated(unsafe) private(set) static var installed: DaemonExecutor?

    /// Makes a new `DaemonExecutor` Swift concurrency's default executor. Call once, first thing in
    /// `main`, before any task or actor exists.
    static func install() {
        precondition(installed == nil, "the daemon executor is installed once")
        installed = DaemonExecutor()
        _createExecutors(factory: Factory.self)
    }

    private struct Factory: ExecutorFactory {
        static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
        static var defaultExecutor: any TaskExecutor { DaemonExecutor.installed! }
    }

    let width: Int
    // `jobs`, `idle` and `threads` are guarded by `lock`; `wakeUp` is signalled under it.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wakeUp = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var jobs = JobQueue()
    private var idle = 0
    private var threads = 0
    private let timers: TimerQueue<UnownedJob>

    init(width: Int = max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) {
        self.width = width
        pthread_mutex_init(lock, nil)
        pthread_cond_init(wakeUp, nil)
        timers = TimerQueue()
        timers.start(delivering: { [unowned self] job in self.submit(job) })
    }

    /// Worker threads started so far (tests).
    var threadCount: Int { locked { threads } }

    func enqueue(_ job: consuming ExecutorJob) {
        submit(UnownedJob(job))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        guard let delay = delay as? Duration, delay > .zero else { return enqueue(job) }
        timers.schedule(UnownedJob(job), at: BootTimer.now() &+ delay.nanoseconds)
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }

    private func submit(_ job: UnownedJob) {
        let start: Bool = locked {
            jobs.push(job)
            if idle > 0 {
                pthread_cond_signal(wakeUp)
                return false
            }
            guard threads < width else { return false }  // a busy worker takes it next
            threads += 1
            return true
        }
        if start { startWorker() }
    }

    private func startWorker() {
        let started = BlockingThread.start { [unowned self] in work() }
        precondition(started, "cannot start a worker thread for the daemon's tasks")
    }

    private func work() {
        while true {
            let job: UnownedJob = locked {
                while true {
                    if let job = jobs.pop() { return job }
                    idle += 1
                    pthread_cond_wait(wakeUp, lock)
                    idle -= 1
                }
            }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}

/// First in, first out, with no copying as it drains (a ring that grows when full).
private struct JobQueue {
    private var slots: [UnownedJob?] = Array(repeating: nil, count: 64)
    private var head = 0
    private var count = 0

    mutating func push(_ job: UnownedJob) {
        if count == slots.count {
            slots = (0..<count).map { slots[(head + $0) % slots.count] } + Array(repeating: nil, count: count)
            head = 0
        }
        slots[(head + count) % slots.count] = job
        count += 1
    }

    mutating func pop() -> UnownedJob? {
        guard count > 0 else { return nil }
        defer {
            slots[head] = nil
            head = (head + 1) % slots.count
            count -= 1
        }
        return slots[head]
    }
}

extension Duration {
    /// Whole nanoseconds, saturating far beyond any sleep of the daemon's (≈ 292 years).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? Int64.max / 2 : whole &+ attoseconds / 1_000_000_000
    }
}
