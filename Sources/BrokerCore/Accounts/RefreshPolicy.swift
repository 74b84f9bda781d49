import BrokerStore

/// When to refresh an account's access token: the proactive schedule and the answer to a token request.
///
/// The refresh margin is `min(max(60 s, 10 % of lifetime), 50 % of lifetime)`: long-lived tokens are
/// refreshed a minute or a tenth of their life before expiry, short-lived ones half-way (a 5-second token
/// ~2.5 s before expiry, not on every call). Pure arithmetic on wall-clock Unix seconds; no clock reads.
///
/// Unknown lifetime (no `expires_in`): a token that comes with a refresh token is trusted for
/// `assumedLifetime` after it was obtained and refreshed on that schedule — conservative, because an
/// expired token served by mistake costs the caller a failed request while an early refresh costs one
/// round trip. A token without a refresh token and without a lifetime cannot be replaced anyway, so it is
/// served as is until logout (providers such as GitHub OAuth apps issue exactly those).
public struct RefreshPolicy: Sendable, Equatable {
    /// The smallest margin for long-lived tokens.
    public var minimumMargin: Double = 60
    /// The margin as a fraction of the lifetime, for tokens living longer than 10 minutes.
    public var marginFraction: Double = 0.10
    /// The margin never exceeds this fraction of the lifetime, so short tokens are not refreshed on every call.
    public var maximumMarginFraction: Double = 0.50
    /// A token younger than this fraction of its lifetime is "brand new": `min_ttl` cannot improve it.
    public var brandNewFraction: Double = 0.10
    /// The proactive refresh happens up to this fraction of the margin earlier, so many accounts
    /// (or many daemons against one provider) do not refresh in lockstep.
    public var jitterFractionOfMargin: Double = 0.25
    /// …and never more than this many seconds earlier.
    public var maximumJitter: Double = 30
    /// Refreshes of one account start at least this many seconds apart, whatever callers ask.
    public var minimumRefreshInterval: Double = 1
    /// How long a token with a refresh token but no known lifetime (no `expires_in`, not a JWT with
    /// `exp`) is trusted: 15 minutes, short enough that a token the provider expires early is
    /// renewed soon, long enough not to hammer providers whose tokens never expire. The only rule
    /// for unknown lifetimes (docs/oidc.md, docs/lifecycle.md).
    public var assumedLifetime: Double = 900

    public init() {}

    /// `min(max(60 s, 10 % of lifetime), 50 % of lifetime)`.
    public func margin(lifetime: Double) -> Double {
        let lifetime = max(lifetime, 0)
        return min(max(minimumMargin, marginFraction * lifetime), maximumMarginFraction * lifetime)
    }

    /// The largest jitter subtracted from the proactive refresh time for this lifetime.
    public func jitterBound(lifetime: Double) -> Double {
        min(jitterFractionOfMargin * margin(lifetime: lifetime), maximumJitter)
    }

    /// The second half of the expiry rule, its only statement: the expiry the broker works with is
    /// the one the provider stated (`TokenResponse.statedExpiry(receivedAt:)`), else
    /// `obtainedAt + assumedLifetime` when a refresh is possible; nil means "never expires" (nothing
    /// better can ever be obtained). Applied at use, never stored, so the vault keeps what the
    /// provider said and a changed policy applies to stored tokens too.
    public func effectiveExpiry(of tokens: TokenSet) -> Double? {
        if let expiresAt = tokens.expiresAt { return expiresAt }
        return tokens.canRefresh ? tokens.obtainedAt + assumedLifetime : nil
    }

    /// The lifetime the margin is computed from (never negative).
    public func lifetime(of tokens: TokenSet) -> Double? {
        effectiveExpiry(of: tokens).map { max($0 - tokens.obtainedAt, 0) }
    }

    /// Whether the token may still be handed out at `now`.
    public func isValid(_ tokens: TokenSet, at now: Double) -> Bool {
        effectiveExpiry(of: tokens).map { now < $0 } ?? true
    }

    /// `expiry − margin − jitter`, with `jitterUnit` in [0, 1) drawn by the caller (deterministic in tests).
    /// Nil when the token never expires. A token without a refresh token gets no proactive refresh;
    /// the state machine then only wakes up at its expiry.
    public func proactiveRefreshTime(for tokens: TokenSet, jitterUnit: Double) -> Double? {
        guard let expiry = effectiveExpiry(of: tokens), let lifetime = lifetime(of: tokens) else { return nil }
        let unit = min(max(jitterUnit, 0), 1)
        return expiry - margin(lifetime: lifetime) - unit * jitterBound(lifetime: lifetime)
    }

    /// What a token request needs, before single-flight and the one-refresh-per-second cap are applied.
    public enum Decision: Sendable, Equatable {
        /// Serve the current token; no network.
        case serve
        /// Serve the current token and start (or join) a refresh in the background: it is inside the margin.
        case serveAndRefresh
        /// Refresh before answering: the token expired, or `min_ttl` asks for more than is left.
        case refreshFirst
        /// The token expired and cannot be refreshed: a new login is needed.
        case expired
    }

    /// The `authctl token [--min-ttl S]` rule. Without `minTTL`: serve while valid and outside the margin;
    /// inside the margin, serve and refresh in the background. With `minTTL`: refresh first when less than
    /// that remains, unless the token is brand new (it cannot get better) or cannot be refreshed (served
    /// as is while valid). A `minTTL` that is not a positive number counts as absent.
    public func decide(_ tokens: TokenSet, minTTL: Double?, now: Double) -> Decision {
        guard let expiry = effectiveExpiry(of: tokens), let lifetime = lifetime(of: tokens) else { return .serve }
        let remaining = expiry - now
        guard remaining > 0 else { return tokens.canRefresh ? .refreshFirst : .expired }
        guard tokens.canRefresh else { return .serve }
        if let minTTL, minTTL > 0, remaining < minTTL, !isBrandNew(tokens, lifetime: lifetime, now: now) {
            return .refreshFirst
        }
        return remaining <= margin(lifetime: lifetime) ? .serveAndRefresh : .serve
    }

    /// Obtained within the first `brandNewFraction` of its lifetime.
    func isBrandNew(_ tokens: TokenSet, lifetime: Double, now: Double) -> Bool {
        now - tokens.obtainedAt < brandNewFraction * lifetime
    }

    /// The earliest time the next refresh may start, given when the previous one started.
    public func earliestRefreshStart(after previousStart: Double?, now: Double) -> Double {
        guard let previousStart else { return now }
        return max(now, previousStart + minimumRefreshInterval)
    }
}
