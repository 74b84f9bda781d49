import FoundationEssentials

/// The engine's view of time, injected so tests run without sleeping.
///
/// Wall-clock time (`now`) is for what the provider states in dates: token expiry, `exp`/`iat`,
/// Retry-After dates. Monotonic time (`elapsed`, `sleep`) is for intervals we measure ourselves:
/// device-flow polling and the JWKS refetch rate limit, immune to clock changes.
public struct OIDCTime: Sendable {
    public let now: @Sendable () -> Date
    /// Monotonic time since an arbitrary origin.
    public let elapsed: @Sendable () -> Duration
    public let sleep: @Sendable (Duration) async throws -> Void

    public init(
        now: @escaping @Sendable () -> Date, elapsed: @escaping @Sendable () -> Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        self.now = now
        self.elapsed = elapsed
        self.sleep = sleep
    }

    /// Monotonic readings and sleeps from `clock`, wall time from `now`.
    public init<C: Clock<Duration>>(clock: C, now: @escaping @Sendable () -> Date) {
        let origin = clock.now
        self.init(
            now: now, elapsed: { origin.duration(to: clock.now) },
            sleep: { try await clock.sleep(for: $0) })
    }

    /// The system clocks: `Date()` and the continuous (suspend-counting) clock.
    public static var system: OIDCTime { OIDCTime(clock: ContinuousClock(), now: { Date() }) }
}
