import BrokerCrypto
import BrokerProtocol
import BrokerStore
import Testing

@testable import BrokerCore

/// What narrowed tokens need of the account machine: a rotated refresh token adopted without
/// touching the account's own access token, and `scope_lost` when a refresh returns less.
@Suite struct AccountStateMachineNarrowingTests {
    func tokens(_ access: String, scope: String?, obtainedAt: Double, refresh: String = "refresh-1") -> TokenSet {
        TokenSet(
            accessToken: Secret(access), refreshToken: Secret(refresh), scope: scope, expiresAt: obtainedAt + 300,
            obtainedAt: obtainedAt)
    }

    /// A machine holding `held`, its refresh of it in flight.
    func refreshing(_ held: TokenSet) -> AccountStateMachine {
        var machine = Fixture.machine(holding: held, now: 1_000)
        _ = machine.timerFired(now: 1_280)
        return machine
    }

    @Test func aRefreshThatLosesScopesReportsScopeLostUntilTheNextLogin() {
        var machine = refreshing(tokens("access-1", scope: "openid profile email", obtainedAt: 1_000))
        _ = machine.refreshSucceeded(tokens("access-2", scope: "openid", obtainedAt: 1_281), generation: 0, now: 1_281)
        #expect(machine.lastError?.code == .scopeLost)
        #expect(machine.lastError?.message.contains("profile email") == true)
        #expect(machine.lastError?.message.contains("authctl login") == true)
        // The next refresh keeps what is left: nothing more is lost, but the report stays.
        _ = machine.timerFired(now: 1_560)
        _ = machine.refreshSucceeded(tokens("access-3", scope: "openid", obtainedAt: 1_561), generation: 0, now: 1_561)
        #expect(machine.lastError?.code == .scopeLost)
        _ = machine.loginStarted(
            AccountStateMachine.PendingLogin(loginID: "l", authorizationURL: "https://x/", deadline: 9_999), now: 1_562)
        _ = machine.loginSucceeded(
            loginID: "l", tokens: tokens("access-4", scope: "openid profile email", obtainedAt: 1_563), now: 1_563)
        #expect(machine.lastError == nil)
    }

    @Test func aRefreshThatKeepsOrDoesNotStateTheScopeReportsNothing() {
        var machine = refreshing(tokens("access-1", scope: "openid profile", obtainedAt: 1_000))
        _ = machine.refreshSucceeded(tokens("access-2", scope: "profile openid", obtainedAt: 1_281), generation: 0, now: 1_281)
        #expect(machine.lastError == nil)
        _ = machine.timerFired(now: 1_560)
        _ = machine.refreshSucceeded(tokens("access-3", scope: nil, obtainedAt: 1_561), generation: 0, now: 1_561)
        #expect(machine.lastError == nil, "no scope in the answer means the grant is unchanged")
    }

    /// The account's tokens, and the same with the rotated refresh token "refresh-2" (as the broker commits it).
    var held: TokenSet { tokens("access-1", scope: "openid", obtainedAt: 1_000) }
    var saved: TokenSet {
        var tokens = held
        tokens.refreshToken = Secret("refresh-2")
        return tokens
    }

    @Test func aRotatedRefreshTokenReplacesOnlyTheRefreshToken() {
        var machine = Fixture.machine(holding: held, now: 1_000)
        let actions = machine.refreshTokenRotated(Secret("refresh-2"), saved: saved, kept: saved, generation: 0, now: 1_001)
        #expect(actions.isEmpty, "committed already: nothing to save, nobody to answer")
        #expect(machine.currentTokens?.accessToken == Secret("access-1"))
        #expect(machine.currentTokens?.refreshToken == Secret("refresh-2"))
        // The next plain refresh presents the rotated token.
        #expect(
            machine.timerFired(now: 1_280).contains(.startRefresh(refreshToken: Secret("refresh-2"), generation: 0, attempt: 1)))
        var empty = Fixture.machine()
        #expect(empty.refreshTokenRotated(Secret("refresh-3"), saved: saved, kept: saved, generation: 0, now: 1_001).isEmpty)
        #expect(empty.currentTokens == nil)
    }

    @Test func aRotationCommittedAsAnotherSetIsHeldAsThatSet() {
        var machine = Fixture.machine(holding: held, now: 1_000)
        var kept = saved
        kept.idToken = .stored(identity: IDTokenIdentity(subject: "alice", tenantID: nil))
        _ = machine.refreshTokenRotated(Secret("refresh-2"), saved: saved, kept: kept, generation: 0, now: 1_001)
        #expect(machine.currentTokens == kept)
    }

    @Test func aRotationUnderAnOlderGenerationChangesNothing() {
        var machine = Fixture.machine(holding: held, now: 1_000)
        #expect(machine.refreshTokenRotated(Secret("refresh-2"), saved: saved, kept: saved, generation: 7, now: 1_001).isEmpty)
        #expect(machine.currentTokens == held)
    }

    @Test func aRotationThatCouldNotBeSavedIsKeptInMemoryAndSavedAgain() {
        var machine = Fixture.machine(holding: held, now: 1_000)
        let actions = machine.refreshTokenRotated(Secret("refresh-2"), saved: saved, kept: nil, generation: 0, now: 1_001)
        #expect(machine.currentTokens == saved)
        #expect(machine.lastError?.code == .storageFailed)
        #expect(machine.unsaved?.failures == 1)
        #expect(actions.notifications.count == 1)
        #expect(actions.wakeUps == [1_002])
        #expect(machine.timerFired(now: 1_002).first == .persistTokens(saved))
        _ = machine.tokensStored(saved, keptAs: saved, now: 1_003)
        #expect(machine.unsaved == nil)
        #expect(machine.lastError == nil)
    }

    @Test func aCommittedRotationEndsAnEarlierFailedSave() {
        var machine = Fixture.machine(holding: held, now: 1_000)
        _ = machine.tokensNotStored(held, reason: "full", now: 1_000)
        #expect(machine.unsaved != nil)
        _ = machine.refreshTokenRotated(Secret("refresh-2"), saved: saved, kept: saved, generation: 0, now: 1_001)
        #expect(machine.unsaved == nil, "the rotated set, committed, is the current one")
        #expect(machine.lastError == nil)
    }

    @Test func entraResourcesBecomeDefaultScopesAndOthersAreRFC8707Resources() throws {
        let narrowing = try TokenNarrowing(scope: "openid", resource: "https://graph.microsoft.com/", audience: nil)
        let entra = OIDCClient.narrowedRequest(
            narrowing, issuer: "https://login.microsoftonline.com/common/v2.0", configuredScopes: ["openid", "offline_access"])
        #expect(entra.scope == "openid https://graph.microsoft.com/.default")
        #expect(entra.resources.isEmpty)
        let other = OIDCClient.narrowedRequest(
            try TokenNarrowing(scope: nil, resource: "https://api.example/", audience: nil), issuer: "https://id.example",
            configuredScopes: ["openid", "offline_access"])
        #expect(other.scope == "openid offline_access", "a resource-only request restates the configured scope")
        #expect(other.resources == ["https://api.example/"])
    }

    @Test(arguments: ["consent_required", "interaction_required", "AADSTS65001 consent (invalid_grant)"])
    func aRefusedNarrowedRefreshLeavesTheAccountActiveWithItsTokens(_ refusal: String) {
        let held = tokens("access-1", scope: "openid", obtainedAt: 1_000)
        var machine = Fixture.machine(holding: held, now: 1_000)
        let before = machine.state
        // invalid_grant is the third case's code; the first two are refusals that never probe.
        let invalidGrant = refusal.contains("invalid_grant")
        let actions = machine.narrowedRefreshRefused(invalidGrant: invalidGrant, generation: 0, now: 1_010)
        #expect(!actions.contains(.deleteTokens))
        #expect(machine.currentTokens == held, "the account keeps its tokens")
        #expect(machine.lastError == nil)
        #expect([.active, .refreshing].contains(machine.wireState(now: 1_010)), "never login_required")
        if !invalidGrant { #expect(actions.isEmpty && machine.state == before) }
        // Its own token is still served.
        #expect(machine.tokenRequested(Fixture.id(1), minTTL: nil, now: 1_011).served.map(\.token) == ["access-1"])
    }

    @Test func aNarrowedInvalidGrantChecksTheRefreshTokenWithOnePlainRefresh() {
        var machine = Fixture.machine(holding: tokens("access-1", scope: "openid", obtainedAt: 1_000), now: 1_000)
        let actions = machine.narrowedRefreshRefused(invalidGrant: true, generation: 0, now: 1_010)
        #expect(actions.refreshStarts.count == 1)
        // A second refusal meanwhile starts nothing more: the check is already under way.
        #expect(machine.narrowedRefreshRefused(invalidGrant: true, generation: 0, now: 1_011).refreshStarts.isEmpty)
        // The plain refresh succeeds: the refresh token was alive, the account stays active.
        _ = machine.refreshSucceeded(tokens("access-2", scope: "openid", obtainedAt: 1_012), generation: 0, now: 1_012)
        #expect(machine.wireState(now: 1_012) == .active)
        #expect(machine.currentTokens?.accessToken == Secret("access-2"))
    }

    @Test func thePlainRefreshRejectingTheTokenStillSignsTheAccountOut() {
        var machine = Fixture.machine(holding: tokens("access-1", scope: "openid", obtainedAt: 1_000), now: 1_000)
        _ = machine.narrowedRefreshRefused(invalidGrant: true, generation: 0, now: 1_010)
        let failed = machine.refreshFailed(.terminal(message: "invalid_grant"), generation: 0, now: 1_011)
        #expect(failed.contains(.deleteTokens))
        #expect(machine.wireState(now: 1_011) == .loginRequired)
    }

    @Test func aNarrowedRefusalOfAnEarlierGenerationChangesNothing() {
        var machine = Fixture.machine(holding: tokens("access-1", scope: "openid", obtainedAt: 1_000), now: 1_000)
        let before = machine.state
        #expect(machine.narrowedRefreshRefused(invalidGrant: true, generation: 7, now: 1_010).isEmpty)
        #expect(machine.state == before)
    }
}
