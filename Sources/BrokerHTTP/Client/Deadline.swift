import Glibc

/// A point on the monotonic clock, used to bound every blocking step (connect, handshake, reads).
///
/// `poll` takes milliseconds, so the deadline hands out the remaining time in that unit.
/// It carries a sentence saying which limit it is, so a timeout error names what was slow.
struct Deadline: Sendable, Comparable {
    let nanoseconds: UInt64
    /// e.g. "the total timeout of 30 s for https://idp.example/token; raise it or try again later".
    let what: String

    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    static func after(_ duration: Duration, what: String) -> Deadline {
        let (seconds, attoseconds) = duration.components
        let nanos = max(0, seconds) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        return Deadline(nanoseconds: monotonicNanoseconds() + UInt64(nanos), what: what)
    }

    /// The earlier of two deadlines (a connect step is bounded by both the connect and total timeouts).
    static func earliest(_ lhs: Deadline, _ rhs: Deadline) -> Deadline { min(lhs, rhs) }

    var timeoutError: HTTPClientError { .timeout(what) }

    /// The remaining time in whole milliseconds, rounded up so a poll never spins on 0 early.
    var remainingMilliseconds: Int32 {
        let current = Deadline.monotonicNanoseconds()
        guard nanoseconds > current else { return 0 }
        return Int32(clamping: (nanoseconds - current + 999_999) / 1_000_000)
    }

    var hasPassed: Bool { Deadline.monotonicNanoseconds() >= nanoseconds }

    static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    static func == (lhs: Deadline, rhs: Deadline) -> Bool { lhs.nanoseconds == rhs.nanoseconds }
}
