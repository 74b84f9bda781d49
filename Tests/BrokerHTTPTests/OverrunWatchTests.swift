import Dispatch
import Synchronization
import Testing

@testable import BrokerHTTP

/// `OverrunWatch` (one thread watches every blocking request's deadline) and what
/// `BlockingThread.run` does with it: work that outlives its deadline is answered with the overrun
/// error, work that ends in time is answered with its own result and its entry never fires.
@Suite struct OverrunWatchTests {
    @Test func anEntryFiresOnceItsDeadlinePassesAndACancelledOneNever() async {
        let watch = OverrunWatch()
        let fired = Mutex<[String]>([])
        let now = Deadline.monotonicNanoseconds()
        // Cancelled before it is due; the later entry firing shows the thread went past its time.
        let cancelled = watch.arm(dueNanoseconds: now + 20_000_000) { fired.withLock { $0.append("cancelled") } }
        #expect(cancelled != nil)
        if let cancelled { watch.cancel(cancelled) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = watch.arm(dueNanoseconds: now + 60_000_000) {
                fired.withLock { $0.append("kept") }
                continuation.resume()
            }
        }
        #expect(fired.withLock { $0 } == ["kept"])
    }

    @Test func anEarlierEntryArmedWhileTheThreadSleepsForALaterOneFiresFirst() async {
        let watch = OverrunWatch()
        let fired = Mutex<[String]>([])
        let now = Deadline.monotonicNanoseconds()
        // The thread sleeps until the first entry (an hour away); the second must wake it.
        let late = watch.arm(dueNanoseconds: now + 3_600_000_000_000) { fired.withLock { $0.append("late") } }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = watch.arm(dueNanoseconds: now + 10_000_000) {
                fired.withLock { $0.append("early") }
                continuation.resume()
            }
        }
        if let late { watch.cancel(late) }
        #expect(fired.withLock { $0 } == ["early"])
    }

    @Test func workThatOutlivesItsDeadlineIsAnsweredWithTheOverrunError() async {
        let threads = ConnectionThreadPool(maximumParked: 1, parkedTimeout: .seconds(1))
        defer { threads.close() }
        let release = DispatchSemaphore(value: 0)
        let deadline = Deadline.after(.milliseconds(10), what: "the test's deadline")
        let result = await BlockingThread.run(
            deadline: deadline, onOverrun: deadline.timeoutError, grace: .zero, on: threads, watch: OverrunWatch()
        ) { () -> Result<Int, HTTPClientError> in
            release.wait()  // a getaddrinfo that ignores the deadline
            return .success(1)
        }
        release.signal()
        guard case .failure(.timeout(let what)) = result else {
            Issue.record("expected the overrun error, got \(result)")
            return
        }
        #expect(what == "the test's deadline")
    }

    @Test func workThatEndsInTimeIsAnsweredWithItsResult() async {
        let threads = ConnectionThreadPool(maximumParked: 1, parkedTimeout: .seconds(1))
        defer { threads.close() }
        let deadline = Deadline.after(.seconds(30), what: "the test's deadline")
        let result = await BlockingThread.run(deadline: deadline, onOverrun: deadline.timeoutError, on: threads) {
            () -> Result<Int, HTTPClientError> in .success(7)
        }
        guard case .success(let value) = result else {
            Issue.record("expected the body's result, got \(result)")
            return
        }
        #expect(value == 7)
    }
}
