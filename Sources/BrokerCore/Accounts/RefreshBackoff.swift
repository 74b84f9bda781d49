/// How long to wait before retrying a refresh that failed transiently (network, timeout, 408/429/5xx,
/// garbage), and how long the daemon may sleep at most.
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

    /// No sleep is longer than this, so a resume from suspend (wall clock jumped) is noticed within 30 s.
    public static let maximumSleep: Double = 30

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

    /// When to wake up next for something due at `due`: never later than `maximumSleep` from now, never in
    /// the past; nil when nothing is due.
    public static func nextWakeUp(due: Double?, now: Double) -> Double? {
        guard let due else { return nil }
        return min(max(due, now), now + maximumSleep)
    }
}
