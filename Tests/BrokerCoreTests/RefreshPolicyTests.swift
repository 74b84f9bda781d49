import BrokerCore
import Testing

@Suite struct RefreshPolicyTests {
    let policy = RefreshPolicy()

    @Test(arguments: [
        (5.0, 2.5),  // 50 % cap: a 5-second token refreshes ~2.5 s before expiry
        (60.0, 30.0),  // 50 % cap beats the 60 s floor
        (300.0, 60.0),  // the 60 s floor
        (3_600.0, 360.0),  // 10 %
        (86_400.0, 8_640.0),  // 10 %
    ])
    func marginFormula(lifetime: Double, expected: Double) {
        #expect(policy.margin(lifetime: lifetime) == expected)
    }

    @Test func marginOfNonsenseLifetimeIsZero() {
        #expect(policy.margin(lifetime: -5) == 0)
        #expect(policy.margin(lifetime: 0) == 0)
    }

    @Test func proactiveRefreshTimeIsExpiryMinusMarginMinusJitter() throws {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)
        // margin 360 s, jitter bound min(25 % of 360, 30) = 30 s
        #expect(policy.jitterBound(lifetime: 3_600) == 30)
        #expect(policy.proactiveRefreshTime(for: tokens, jitterUnit: 0) == 4_240.0)
        #expect(policy.proactiveRefreshTime(for: tokens, jitterUnit: 1) == 4_210.0)
        let middle = try #require(policy.proactiveRefreshTime(for: tokens, jitterUnit: 0.5))
        #expect(middle == 4_225.0)
    }

    @Test func shortTokensKeepTheirJitterInsideTheFirstHalfOfLife() throws {
        let tokens = Fixture.tokens(obtainedAt: 100, lifetime: 5)
        let earliest = try #require(policy.proactiveRefreshTime(for: tokens, jitterUnit: 1))
        let latest = try #require(policy.proactiveRefreshTime(for: tokens, jitterUnit: 0))
        #expect(latest == 102.5)
        #expect(earliest == 102.5 - 0.625)
        #expect(earliest > 100)
    }

    @Test func withoutMinTTLServesOutsideMarginAndRefreshesInside() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)  // expires 4600, margin 360
        #expect(policy.decide(tokens, minTTL: nil, now: 1_001) == .serve)
        #expect(policy.decide(tokens, minTTL: nil, now: 4_239) == .serve)
        #expect(policy.decide(tokens, minTTL: nil, now: 4_240) == .serveAndRefresh)
        #expect(policy.decide(tokens, minTTL: nil, now: 4_599) == .serveAndRefresh)
        #expect(policy.decide(tokens, minTTL: nil, now: 4_600) == .refreshFirst)
    }

    @Test func fiveSecondTokensAreNotRefreshedOnEveryCall() {
        let tokens = Fixture.tokens(obtainedAt: 100, lifetime: 5)
        #expect(policy.decide(tokens, minTTL: nil, now: 102) == .serve)
        #expect(policy.decide(tokens, minTTL: nil, now: 102.6) == .serveAndRefresh)
    }

    @Test func minTTLRefreshesFirstWhenLessRemains() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)
        #expect(policy.decide(tokens, minTTL: 600, now: 2_000) == .serve)  // 2600 s left
        #expect(policy.decide(tokens, minTTL: 600, now: 4_100) == .refreshFirst)  // 500 s left
        #expect(policy.decide(tokens, minTTL: 0, now: 4_100) == .serve)  // 0 counts as absent
        #expect(policy.decide(tokens, minTTL: -3, now: 4_100) == .serve)
        #expect(policy.decide(tokens, minTTL: .nan, now: 4_100) == .serve)
    }

    @Test func brandNewTokenIsReturnedAsIsWhateverMinTTLAsks() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 300)  // brand new for 30 s
        #expect(policy.decide(tokens, minTTL: 900, now: 1_000) == .serve)
        #expect(policy.decide(tokens, minTTL: 900, now: 1_029) == .serve)
        #expect(policy.decide(tokens, minTTL: 900, now: 1_030) == .refreshFirst)
    }

    @Test func withoutRefreshTokenTheTokenIsServedAsIsUntilItExpires() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 300, refresh: nil)
        #expect(policy.decide(tokens, minTTL: 900, now: 1_250) == .serve)
        #expect(policy.decide(tokens, minTTL: nil, now: 1_299) == .serve)
        #expect(policy.decide(tokens, minTTL: nil, now: 1_300) == .expired)
    }

    /// The one rule for an unknown lifetime (docs/oidc.md): 15 minutes, margin min(max(60, 90), 450).
    @Test func unknownLifetimeWithRefreshTokenAssumesFifteenMinutes() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: nil)
        #expect(policy.effectiveExpiry(of: tokens) == 1_900)
        #expect(policy.proactiveRefreshTime(for: tokens, jitterUnit: 0) == 1_810)
        #expect(policy.decide(tokens, minTTL: nil, now: 1_700) == .serve)
        #expect(policy.decide(tokens, minTTL: nil, now: 1_850) == .serveAndRefresh)
        #expect(policy.decide(tokens, minTTL: nil, now: 1_900) == .refreshFirst)
    }

    @Test func unknownLifetimeWithoutRefreshTokenNeverExpires() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: nil, refresh: nil)
        #expect(policy.effectiveExpiry(of: tokens) == nil)
        #expect(policy.proactiveRefreshTime(for: tokens, jitterUnit: 0) == nil)
        #expect(policy.decide(tokens, minTTL: 600, now: 1_000_000) == .serve)
        #expect(policy.isValid(tokens, at: 1_000_000))
    }

    @Test func emptyRefreshTokenCountsAsNone() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 300, refresh: "")
        #expect(!tokens.canRefresh)
        #expect(policy.decide(tokens, minTTL: nil, now: 1_400) == .expired)
    }

    @Test func refreshesStartAtLeastOneSecondApart() {
        #expect(policy.earliestRefreshStart(after: nil, now: 50) == 50)
        #expect(policy.earliestRefreshStart(after: 49.5, now: 50) == 50.5)
        #expect(policy.earliestRefreshStart(after: 48, now: 50) == 50)
    }
}
