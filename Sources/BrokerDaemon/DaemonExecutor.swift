import BrokerHTTP
import Dispatch
import Glibc
import Synchronization
import SystemCalls
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency

/// The daemon's default executor for Swift concurrency, installed by `install()` before any task
/// starts: up to `width` worker threads (one per CPU, at least two, started when work first
/// needs them) that sleep on a condition variable while there is nothing to run, and one timer
/// thread that sleeps in `read` on a CLOCK_BOOTTIME timerfd armed for the earliest delayed job.
///
/// Why not libdispatch's pool, the default on Linux: its internal workqueue arms a one-second
/// timer on its manager thread when the first worker starts and never disarms it, so an idle
/// daemon woke 60 times a minute although nothing of ours was due (docs/BENCHMARKS-archive.md,
/// "Daemon idle: what the memory is"). Here an idle daemon sleeps until its next refresh timer. CLOCK_BOOTTIME, as
/// `ContinuousClock` on Linux: a sleep across a suspend fires at resume, not a suspend later.
///
/// What it leaves out, on purpose: task priorities (jobs run first in, first out — the daemon
/// gives none) and timer tolerances; a `SuspendingClock` sleep is timed on CLOCK_BOOTTIME too (the
/// daemon sleeps only on `ContinuousClock`), and a clock whose durations are not `Duration` stops
/// the daemon rather than turning a sleep loop into a busy one. It rests on the toolchain's
/// experimental executor-factory SPI (Swift 6.3): `install()` checks that tasks run on its
/// workers and sleeps are handed to it, and the daemon logs a warning when they are not (a new
/// toolchain); `DaemonExecutorTests` fails on that warning and on any idle wake-up.
final class DaemonExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    /// The executor `install()` made the default, if any.
    nonisolated(unsafe) private(set) static var installed: DaemonExecutor?

    /// Makes a new `DaemonExecutor` Swift concurrency's default executor. Call once, first thing in
    /// `main`, before any task or actor exists. False when a probe task did not run on its workers
    /// or its sleep was not handed to this executor within 5 s (the runtime ignored the factory).
    static func install() -> Bool {
        precondition(installed == nil, "the daemon executor is installed once")
        let executor = DaemonExecutor()
        installed = executor
        _createExecutors(factory: Factory.self)
        return executor.probe()
    }

    /// Logged when `install()` finds its executor unused: everything works, but idle wake-ups return.
    static let notInUse =
        "tasks are not running on the daemon's own executor (a new Swift toolchain?): libdispatch's pool will wake the idle daemon once a second"

    private struct Factory: ExecutorFactory {
        static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
        static var defaultExecutor: any TaskExecutor { DaemonExecutor.installed! }
    }

    /// What jobs run "on": the generic executor (no actor, no executor preference), as libdispatch's
    /// global executor runs them. Run on a task executor instead, a job may not give its thread to
    /// an actor it calls (the runtime's `canGiveUpThreadForSwitch`): each first actor call was one
    /// more enqueue. Two null words are the generic executor's `SerialExecutorRef`.
    private static let generic = unsafeBitCast((0, 0), to: UnownedSerialExecutor.self)

    /// A worker waiting for a job, with its own condition on the shared lock. `claimed` is set by
    /// the `submit` that wakes it (and takes it off `waiting`), so a spurious wake-up is told apart
    /// and a second `submit` never counts on a worker that is already claimed.
    private final class Waiter {
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        var claimed = false
        init() { pthread_cond_init(condition, nil) }
    }

    let width: Int
    // Everything below `lock` is guarded by it.
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var jobs = JobQueue()
    private var waiting: [Waiter] = []
    private var threads = 0
    private var workerThreads: Set<pthread_t> = []
    private let timers: TimerQueue<UnownedJob>
    /// Delayed jobs handed to this executor, due or not (the start-up probe's evidence).
    private let sleepsSeen = Atomic<UInt64>(0)

    init(width: Int = max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) {
        self.width = width
        pthread_mutex_init(lock, nil)
        timers = TimerQueue()
        timers.start(delivering: { [unowned self] job in self.submit(job) })
    }

    /// Worker threads running now.
    var threadCount: Int { locked { threads } }

    /// True on one of this executor's worker threads.
    var isWorkerThread: Bool { locked { workerThreads.contains(pthread_self()) } }

    func enqueue(_ job: consuming ExecutorJob) {
        submit(UnownedJob(job))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        sleepsSeen.add(1, ordering: .relaxed)
        guard let delay = delay as? Duration else {
            preconditionFailure("the daemon's executor sleeps only on clocks measured in Duration, not \(C.self)")
        }
        guard delay > .zero else { return enqueue(job) }
        timers.schedule(UnownedJob(job), at: BootTimer.now().saturatingAdd(delay.nanoseconds))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }

    private func submit(_ job: UnownedJob) {
        let start: Bool = locked {
            jobs.push(job)
            if let waiter = waiting.popLast() {
                waiter.claimed = true
                pthread_cond_signal(waiter.condition)
                return false
            }
            guard threads < width else { return false }  // a busy worker takes it next
            threads += 1
            return true
        }
        guard start, !BlockingThread.start({ [unowned self] in work() }) else { return }
        // Refused a thread (a process or cgroup limit): the job waits for a running worker.
        let running = locked {
            threads -= 1
            return threads
        }
        precondition(running > 0, "cannot start a thread for the daemon's tasks")
    }

    private func work() {
        let me = Waiter()
        locked { _ = workerThreads.insert(pthread_self()) }
        while true {
            let job: UnownedJob = locked {
                while true {
                    if let job = jobs.pop() { return job }
                    me.claimed = false
                    waiting.append(me)
                    while !me.claimed { pthread_cond_wait(me.condition, lock) }
                }
            }
            job.runSynchronously(on: Self.generic)
        }
    }

    /// Whether a task runs on a worker and its sleep is handed to this executor (`install()`).
    private func probe() -> Bool {
        let done = DispatchSemaphore(value: 0)
        let passed = Mutex(false)
        let sleeps = sleepsSeen.load(ordering: .relaxed)
        Task.detached { [self] in
            let onWorker = isWorkerThread
            try? await Task.sleep(for: .microseconds(200))
            passed.withLock { $0 = onWorker && sleepsSeen.load(ordering: .relaxed) > sleeps }
            done.signal()
        }
        return done.wait(timeout: .now() + 5) == .success && passed.withLock { $0 }
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

extension Int64 {
    /// `self + other`, held at `Int64.max` instead of wrapping (a "sleep forever" stays forever).
    func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}

extension Duration {
    /// Whole nanoseconds, held at `Int64.max` beyond ≈ 292 years.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (seconds > 0 ? .max : .min) : whole.saturatingAdd(attoseconds / 1_000_000_000)
    }
}
