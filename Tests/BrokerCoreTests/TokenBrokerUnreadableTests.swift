import BrokerCore
import BrokerProtocol
import Testing

@testable import BrokerStore

/// docs/security.md: "A value that fails to open is reported as an error for that account; the
/// daemon does not crash." A client secret that no longer opens was dropped silently: the account
/// then refreshed as a public client, which a real provider answers with invalid_client — and the
/// refresh token is gone. It must be reported and its tokens kept, unused.
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerUnreadableTests {
    @Test func aClientSecretThatNoLongerOpensIsReportedAndItsTokensKeptUnused() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        #expect(try await harness.addAndLogin(broker, clientSecret: "s3cret").outcome == .succeeded)
        _ = try await harness.addAndLogin(broker, name: "other")
        await broker.shutdown()

        let path = harness.directory.appending("tokens.db")
        let vault = try await openVault { try Vault.open(databasePath: path, keySource: .defaultKeyFile(path: harness.keyPath)) }
        try vault.connection.run(
            "UPDATE accounts SET client_secret = substr(client_secret, 1, length(client_secret) - 1) WHERE name = 'work'")

        let restarted = try await harness.makeBroker()
        let work = try await restarted.account(named: "work")
        #expect(work.state != .active)
        #expect(work.lastError?.code == .internal)
        #expect(work.lastError?.message.contains("cannot be used") == true, "\(String(describing: work.lastError))")
        #expect(await restarted.tokenOrCode() == .error(.loginRequired))
        #expect(await restarted.tokenOrCode("other") != .error(.loginRequired), "an intact account was affected")
        harness.clock.advance(3600)
        try await Task.sleep(for: .milliseconds(200))
        #expect(harness.provider.with { $0.refreshes } <= 1, "the account refreshed without its client secret")
        await restarted.shutdown()
        let account = try #require(try vault.accounts().first { $0.name == "work" })
        #expect(try vault.loadTokens(accountID: account.id)?.refreshToken != nil, "the stored tokens were deleted")
    }
}
