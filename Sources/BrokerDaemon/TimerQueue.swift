import BrokerHTTP
import Glibc
import Synchronization
import SystemCalls

/// The delayed jobs of `DaemonExecutor` (`Job` is `UnownedJob` there; tests use closures): a heap
/// ordered by deadline (CLOCK_BOOTTIME nanoseconds) and one thread that blocks in `read` on a
/// timerfd armed, with an absolute time, for the earliest. Whoever changes the earliest deadline
/// re-arms the timerfd under the lock, so the thread is woken only when a job is due — never to poll.
final class TimerQueue<Job: Sendable>: Sendable {
    private struct Entry {
        let deadline: Int64
        let sequence: UInt64  // equal deadlines run in the order they were scheduled
        let job: Job
        func precedes(_ other: Entry) -> Bool { (deadline, sequence) < (other.deadline, other.sequence) }
    }

    private let timer: BootTimer
    /// The heap, and the last sequence number given (it orders equal deadlines).
    private let heap = Mutex<(entries: [Entry], sequence: UInt64)>(([], 0))

    init() {
        guard let timer = BootTimer() else {
            preconditionFailure("cannot create the timer of the daemon's tasks (errno \(errno))")
        }
        self.timer = timer
    }

    /// Starts the thread that hands each job to `deliver` when its deadline has passed.
    func start(delivering deliver: @escaping @Sendable (Job) -> Void) {
        let started = BlockingThread.start(stackSize: 64 * 1024) { [self] in
            while true {
                timer.wait()
                for job in takeDue() { deliver(job) }
            }
        }
        precondition(started, "cannot start the timer thread of the daemon's tasks")
    }

    func schedule(_ job: Job, at deadline: Int64) {
        heap.withLock { heap in
            heap.sequence &+= 1
            let entry = Entry(deadline: deadline, sequence: heap.sequence, job: job)
            Self.push(entry, into: &heap.entries)
            if heap.entries[0].sequence == entry.sequence { arm(at: deadline) }
        }
    }

    /// Jobs whose deadline has passed, in order; re-arms (or disarms) the timer for the rest.
    private func takeDue() -> [Job] {
        let now = BootTimer.now()
        return heap.withLock { heap in
            var due: [Job] = []
            while let first = heap.entries.first, first.deadline <= now {
                due.append(Self.popFirst(from: &heap.entries).job)
            }
            arm(at: heap.entries.first?.deadline)
            return due
        }
    }

    private func arm(at deadline: Int64?) {
        precondition(timer.arm(at: deadline), "cannot arm the timer of the daemon's tasks (errno \(errno))")
    }

    private static func push(_ entry: Entry, into entries: inout [Entry]) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private static func popFirst(from entries: inout [Entry]) -> Entry {
        let first = entries[0]
        let last = entries.removeLast()
        guard !entries.isEmpty else { return first }
        entries[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].precedes(entries[smallest]) { smallest = left }
            if right < entries.count, entries[right].precedes(entries[smallest]) { smallest = right }
            guard smallest != parent else { return first }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
