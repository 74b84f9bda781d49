/// How long to wait before retrying a refresh that failed transiently (network, timeout, 408/429/5xx,
/// garbage), and when the daemon wakes up for what is due.
///
/// Exponential: 1 s, 2 s, 4 s … capped at 5 minutes, each delay shortened by up to 20 % of jitter so
/// that accounts failing together do not retry together. A `Retry-After` from the provider wins when it
/// asks for longer (capped at 15 minutes: a broken header must not park an account for a day).
/// The current token keeps being served until it expires meanwhile.
public struct RefreshBackoff: Sendable, Equatable {
    public var initialDelay: Double = 1
    public var multiplier: Double = 2
    public var maximumDelay: Double = 300
    /// The jitter takes away up to this fraction of the nominal delay.
    public var jitterFraction: Double = 0.2
    public var maximumRetryAfter: Double = 900

    /// Failed saves of rotated tokens are retried at least this often (`AccountStateMachine.UnsavedTokens`).
    public static let maximumSaveRetryDelay: Double = 30

    public init() {}

    /// The nominal delay after the `attempt`-th consecutive failure (1-based):
    /// `initial × multiplier^(attempt−1)`, capped.
    public func nominalDelay(afterAttempt attempt: Int) -> Double {
        // Repeated multiplication, stopped at the cap: no overflow for any attempt count, no Foundation pow.
        var delay = initialDelay
        var step = 1
        while step < attempt, delay < maximumDelay, multiplier > 1 {
            delay *= multiplier
            step += 1
        }
        return min(delay, maximumDelay)
    }

    /// The delay to wait after the `attempt`-th consecutive failure, with `jitterUnit` in [0, 1) drawn by
    /// the caller: within [(1 − jitterFraction) × nominal, nominal], or the capped `Retry-After` when larger.
    public func delay(afterAttempt attempt: Int, retryAfter: Double?, jitterUnit: Double) -> Double {
        let nominal = nominalDelay(afterAttempt: attempt)
        let unit = min(max(jitterUnit, 0), 1)
        let jittered = nominal * (1 - jitterFraction * unit)
        guard let retryAfter, retryAfter.isFinite, retryAfter > 0 else { return jittered }
        return max(jittered, min(retryAfter, maximumRetryAfter))
    }

    /// When to wake up next for something due at `due`: at `due`, never in the past; nil when nothing is
    /// due. No cap: an idle daemon wakes only when something is due. The broker's sleep is a
    /// `ContinuousClock` sleep, a CLOCK_BOOTTIME timerfd on Linux (seen in /proc/PID/fdinfo), which
    /// counts suspended time and fires on resume when its deadline passed meanwhile; a 30-second cap
    /// used to cost every account a wake-up (and the process new pool threads) twice a minute.
    public static func nextWakeUp(due: Double?, now: Double) -> Double? {
        guard let due else { return nil }
        return max(due, now)
    }
}
