import BrokerProtocol
import BrokerStore
import Dispatch
import MockProvider
import TestSupport
import Testing

@testable import BrokerCore

/// Committed ID tokens live in the vault only (`IDTokenHolding.stored`, docs/BENCHMARKS-archive.md,
/// "The ID token out of memory"): nothing in memory holds one, and every action that needs one reads it back —
/// the same-user check of a refresh, the id-token route, logout's `id_token_hint` — after a restart too, and a
/// set saved without its ID token in memory never erases the stored one.
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerStoredIDTokenTests {
    static func runtime(_ fixture: MockBrokerFixture) async throws -> AccountRuntime {
        try #require(await fixture.broker.accounts.values.first)
    }

    /// A token asked for with more `min_ttl` than it has (ten minutes on, so it is not brand
    /// new): a refresh first. True when a token came.
    static func forcedRefresh(_ fixture: MockBrokerFixture) async -> Bool {
        fixture.clock.advance(600)
        if case .token = await fixture.broker.tokenOrCode(minTTL: 3300) { return true }
        return false
    }

    /// The ID token the vault holds for the account.
    static func storedIDToken(_ fixture: MockBrokerFixture) async throws -> String? {
        let id = try await runtime(fixture).id
        return try await fixture.broker.worker.perform { try $0.loadIDToken(accountID: id)?.revealString() }
    }

    /// What the broker holds in memory for the account carries no ID token.
    static func expectNoIDTokenInMemory(_ fixture: MockBrokerFixture, sourceLocation: SourceLocation = #_sourceLocation)
        async throws
    {
        let runtime = try await runtime(fixture)
        let current = try #require(runtime.machine.currentTokens, sourceLocation: sourceLocation)
        guard case .stored = current.idToken else {
            Issue.record("the machine holds \(String(describing: current.idToken))", sourceLocation: sourceLocation)
            return
        }
        // One set in memory: the last-saved copy and the token cache share the machine's.
        #expect(runtime.persistedTokens?.sharesStorage(with: current) == true, sourceLocation: sourceLocation)
        let entry = fixture.broker.cache.servable(account: runtime.key, now: fixture.clock.now())
        #expect(entry?.tokens.sharesStorage(with: current) == true, "the token cache", sourceLocation: sourceLocation)
    }

    @Test func afterALoginAndARefreshOnlyTheVaultHoldsTheIDToken() async throws {
        let fixture = try await MockBrokerFixture.loggedIn()
        _ = await fixture.currentToken
        try await Self.expectNoIDTokenInMemory(fixture)
        let current = try #require(try await Self.runtime(fixture).machine.currentTokens)
        #expect(current.idToken == .stored(identity: IDTokenIdentity(subject: "mock-user", tenantID: nil)))
        let first = try #require(try await Self.storedIDToken(fixture))

        try #require(await Self.forcedRefresh(fixture), "the forced refresh failed")
        #expect(fixture.provider.stats.refreshes == 1)
        try await Self.expectNoIDTokenInMemory(fixture)
        let second = try #require(try await Self.storedIDToken(fixture))
        #expect(second != first, "the refresh's ID token is stored")
        #expect(try await fixture.broker.idToken(account: "work", minTTL: nil).idToken == second)
        await fixture.stop()
    }

    @Test func afterARestartTheRoutesReadTheStoredIDTokenBack() async throws {
        let before = try await MockBrokerFixture.loggedIn()
        let served = try await before.broker.idToken(account: "work", minTTL: nil).idToken
        let fixture = try await before.restarted()
        let current = try #require(try await Self.runtime(fixture).machine.currentTokens)
        #expect(current.idToken == .stored(identity: nil), "start-up reads no ID token into memory")
        #expect(try await fixture.broker.idToken(account: "work", minTTL: nil).idToken == served)

        let logout = try await fixture.broker.logout(account: "work")
        let url = try #require(logout.endSessionURL)
        #expect(url.contains("id_token_hint="), "\(url)")
        _ = try await browserGet(url)
        #expect(fixture.provider.stats.lastEndSessionHadValidIDTokenHint == true, "the hint is the stored ID token")
        await fixture.stop()
    }

    @Test func aRefreshAfterARestartStillRefusesAnotherUser() async throws {
        let before = try await MockBrokerFixture.loggedIn()
        let fixture = try await before.restarted()
        fixture.provider.configure { $0.subject = "someone-else" }
        _ = await Self.forcedRefresh(fixture)
        #expect(fixture.provider.stats.refreshes == 1)
        let runtime = try await Self.runtime(fixture)
        #expect(
            runtime.machine.lastError?.message.contains("another user") == true,
            "\(String(describing: runtime.machine.lastError))")
        // As before a restart: tokens for another user are never stored, and the account needs a login.
        #expect(runtime.machine.currentTokens == nil)
        let id = runtime.id
        #expect(try await fixture.broker.worker.perform { try $0.loadTokens(accountID: id) } == nil)
        await fixture.stop()
    }

    @Test func aRefreshAfterARestartLearnsTheIdentityAndStoresTheNewIDToken() async throws {
        let before = try await MockBrokerFixture.loggedIn()
        let fixture = try await before.restarted()
        let stored = try await Self.storedIDToken(fixture)
        try #require(await Self.forcedRefresh(fixture), "the refresh failed")
        try await Self.expectNoIDTokenInMemory(fixture)
        let current = try #require(try await Self.runtime(fixture).machine.currentTokens)
        #expect(current.idToken == .stored(identity: IDTokenIdentity(subject: "mock-user", tenantID: nil)))
        let after = try await Self.storedIDToken(fixture)
        #expect(after != nil && after != stored)
        await fixture.stop()
    }

    @Test func aRefreshWithoutAnIDTokenKeepsTheStoredOne() async throws {
        var knobs = MockProviderConfiguration()
        knobs.idTokenOnRefresh = false
        let before = try await MockBrokerFixture.loggedIn(knobs)
        let stored = try #require(try await Self.storedIDToken(before))
        // Across a restart (identity unknown: read back) and without one (identity kept in memory).
        let fixture = try await before.restarted()
        for round in 1...2 {
            try #require(await Self.forcedRefresh(fixture), "refresh \(round) failed")
            #expect(fixture.provider.stats.refreshes == round)
            #expect(try await Self.storedIDToken(fixture) == stored, "refresh \(round) kept the stored ID token")
            try await Self.expectNoIDTokenInMemory(fixture)
        }
        #expect(try await fixture.broker.idToken(account: "work", minTTL: nil).idToken == stored)
        await fixture.stop()
    }

    /// Review finding: a refresh whose ID-token read waits behind a security-relevant update (which
    /// deletes the tokens and moves the generation on) must not go to the provider afterwards — not
    /// with the old grant under the new configuration, and never without the same-user check.
    @Test func aRefreshWhoseVaultReadStraddlesAnUpdateNeverReachesTheProvider() async throws {
        let before = try await MockBrokerFixture.loggedIn()
        let fixture = try await before.restarted()  // `.stored(identity: nil)`: a refresh reads the vault
        fixture.provider.configure { $0.subject = "someone-else" }
        let worker = await fixture.broker.worker
        let gate = DispatchSemaphore(value: 0)
        worker.enqueue({ _ in gate.wait() }, onError: { _ in })
        #expect(await eventually { worker.queuedJobs == 0 }, "the vault thread holds the gate")
        let update = Task {
            try await fixture.broker.updateAccount(fixture.configuration(scopes: ["openid", "offline_access"]))
        }
        #expect(await eventually { worker.queuedJobs == 1 }, "the update's batch waits behind the gate")
        fixture.clock.advance(600)
        let refresh = Task { await fixture.broker.tokenOrCode(minTTL: 3300) }
        #expect(await eventually { worker.queuedJobs == 2 }, "the refresh's read waits behind the update")
        gate.signal()
        #expect(try await update.value.outcome == .signedOut)
        _ = await refresh.value  // answered by the update (login required); the refresh task goes on
        let key = try await Self.runtime(fixture).key
        #expect(await eventually { await !fixture.broker.refreshLeases.isHeld(key) }, "the refresh task ended")
        #expect(fixture.provider.stats.refreshes == 0, "the old grant's refresh token was sent after the update")
        #expect(!fixture.logs.captured.contains { $0.contains("access token refreshed") })
        await fixture.stop()
    }
}
