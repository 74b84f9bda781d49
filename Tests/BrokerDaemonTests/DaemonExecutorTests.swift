import Dispatch
import Foundation
import Synchronization
import SystemCalls
import TestSupport
import Testing

@testable import BrokerDaemon

/// The daemon's own executor (`DaemonExecutor`): its timer queue delivers delayed jobs in deadline
/// order, and the real daemon, which runs on it, sleeps while idle.
@Suite struct DaemonExecutorTests {
    @Test func theTimerQueueDeliversJobsByDeadlineThenInTheOrderScheduled() async throws {
        let queue = TimerQueue<Int>()
        let delivered = Mutex<[Int]>([])
        let now = BootTimer.now()
        // Scheduled out of order; 3 and 4 share a deadline; 5 is already due. The thread starts
        // after: however late it runs, what is due comes out in deadline order.
        queue.schedule(1, at: now + 300_000_000)
        queue.schedule(3, at: now + 150_000_000)
        queue.schedule(4, at: now + 150_000_000)
        queue.schedule(2, at: now + 200_000_000)
        queue.schedule(5, at: now - 1)
        queue.start { job in delivered.withLock { $0.append(job) } }
        #expect(await eventually { delivered.withLock { $0.count } == 5 })
        #expect(delivered.withLock { $0 } == [5, 3, 4, 2, 1])
        #expect(BootTimer.now() - now >= 300_000_000, "no job may run before its deadline")
    }

    @Test func anEarlierDeadlineScheduledWhileTheThreadWaitsWakesItSooner() async throws {
        let queue = TimerQueue<String>()
        let delivered = Mutex<[String]>([])
        queue.start { job in delivered.withLock { $0.append(job) } }
        let now = BootTimer.now()
        queue.schedule("an hour", at: now + 3_600_000_000_000)
        try await Task.sleep(for: .milliseconds(50))  // the thread now waits for the hour
        queue.schedule("soon", at: now + 100_000_000)
        #expect(await eventually { delivered.withLock { $0 } == ["soon"] })
    }

    /// A job queued while the only idle worker is already claimed by another still gets a worker
    /// of its own (up to the width): here the first job blocks until the second has run.
    @Test func aJobQueuedBehindABlockedOneGetsItsOwnWorker() async throws {
        let executor = DaemonExecutor(width: 2)
        await Task(executorPreference: executor) {}.value  // one worker started, now idle
        let secondRan = DispatchSemaphore(value: 0)
        let first = Task(executorPreference: executor) { secondRan.wait(timeout: .now() + 10) == .success }
        let second = Task(executorPreference: executor) { executor.isWorkerThread }
        #expect(await second.value, "the second job ran on a worker")
        secondRan.signal()
        #expect(await first.value, "the second job ran while the first one waited")
        #expect(executor.threadCount == 2)
    }

    @Test func jobsRunOnTheWorkersAndNoMoreThreadsThanTheWidthStart() async throws {
        let executor = DaemonExecutor(width: 3)
        let onWorkers = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<200 { group.addTask(executorPreference: executor) { executor.isWorkerThread } }
            return try await group.reduce(true) { $0 && $1 }
        }
        #expect(onWorkers)
        #expect(executor.threadCount <= 3)
    }

    @Test func deadlinesSaturateInsteadOfWrapping() {
        #expect(Duration.nanoseconds(Int64.max).nanoseconds == Int64.max)
        #expect(Duration.seconds(Int64.max).nanoseconds == Int64.max)
        #expect(Duration.milliseconds(1_500).nanoseconds == 1_500_000_000)
        #expect(BootTimer.now().saturatingAdd(Duration.seconds(Int64.max).nanoseconds) == Int64.max)
        #expect(Int64(5).saturatingAdd(-7) == -2)
    }

    /// libdispatch's pool, the default executor, woke the daemon every second (a monitor timer it
    /// never disarms). On the daemon's executor no thread wakes while nothing is due: in 2.5 s of
    /// idle none blocks again more than once (voluntary context switches: a wake-up ends in one;
    /// a parked connection thread may end once meanwhile).
    @Test func theIdleDaemonSleeps() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let notify = try NotifyListener()
        let daemon = try harness.launch(notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "no READY=1; log:\n\(daemon.log)")
        #expect(try await harness.authctl(["status"]).status == 0)
        try await Task.sleep(for: .milliseconds(500))
        let before = try Self.voluntarySwitches(of: daemon.pid)
        try #require(before.count >= 4, "the daemon's threads could not be read: \(before)")
        try await Task.sleep(for: .milliseconds(2_500))
        let after = try Self.voluntarySwitches(of: daemon.pid)
        let woken = after.filter { thread, switches in switches - (before[thread] ?? 0) > 1 }
        #expect(woken.isEmpty, "threads woken more than once while idle: \(woken)")
        #expect(!daemon.log.contains(DaemonExecutor.notInUse), "the start-up check found the executor unused")
        #expect(try await daemon.stop() == 0, "log:\n\(daemon.log)")
    }

    /// Each thread's voluntary context switches (/proc/PID/task/TID/status): how often it blocked,
    /// which a wake-up always ends in; preemption on a busy machine does not count.
    static func voluntarySwitches(of pid: pid_t) throws -> [String: Int] {
        let tasks = "/proc/\(pid)/task"
        var counts: [String: Int] = [:]
        for thread in try FileManager.default.contentsOfDirectory(atPath: tasks) {
            guard let status = try? String(contentsOfFile: "\(tasks)/\(thread)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                counts[thread] = Int(line.dropFirst("voluntary_ctxt_switches:".count).trimmingCharacters(in: .whitespaces))
            }
        }
        return counts
    }
}
