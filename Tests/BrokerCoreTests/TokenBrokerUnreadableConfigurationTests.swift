import BrokerCore
import BrokerProtocol
import Testing

@testable import BrokerStore

/// Issue 10: the stored configuration was decoded with synthesized keys and `try?`, so a document
/// it could not read silently dropped every option (endpoints, redirect, git prefix). A document
/// that cannot be decoded must leave the account listed, in `error` with `configuration_unreadable`,
/// its tokens kept and unused, and the log naming the account.
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerUnreadableConfigurationTests {
    @Test(arguments: [
        (
            "unknown version",
            #"UPDATE accounts SET configuration = json_set(configuration, '$.version', 2) WHERE name = 'work'"#,
            "version is 2"
        ),
        (
            "missing key", #"UPDATE accounts SET configuration = json_remove(configuration, '$.issuer') WHERE name = 'work'"#,
            "'issuer' is missing"
        ),
        (
            "wrong type",
            #"UPDATE accounts SET configuration = json_set(configuration, '$.redirect_port', 'x') WHERE name = 'work'"#,
            "redirect_port"
        ),
    ])
    func anUnreadableConfigurationIsListedInErrorAndItsTokensKeptUnused(
        damage: String, sql: String, reason: String
    ) async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        #expect(try await harness.addAndLogin(broker).outcome == .succeeded)
        _ = try await harness.addAndLogin(broker, name: "other")
        await broker.shutdown()

        let vault = try await openVault {
            try Vault.open(
                databasePath: harness.directory.appending("tokens.db"), keySource: .defaultKeyFile(path: harness.keyPath))
        }
        try vault.connection.run(sql)

        let restarted = try await harness.makeBroker()
        let listed = await restarted.accounts().accounts
        #expect(listed.map(\.name) == ["other", "work"], "\(damage): the account is no longer listed")
        let work = try await restarted.account(named: "work")
        #expect(work.state == .error)
        #expect(work.lastError?.code == .configurationUnreadable)
        let message = work.lastError?.message ?? ""
        #expect(message.contains(reason), "\(damage): \(message)")
        #expect(message.contains("authctl account remove work"), "the message does not say what to do: \(message)")
        #expect(listed.first { $0.name == "work" } == work)
        #expect(await restarted.tokenOrCode() == .error(.configurationUnreadable))
        #expect(await restarted.tokenOrCode("other") != .error(.configurationUnreadable), "an intact account was affected")
        #expect(
            harness.logs.captured.contains { $0.hasPrefix("error:") && $0.contains("work") && $0.contains("configuration") },
            "the log does not say which account: \(harness.logs.captured)")
        harness.clock.advance(3600)
        try await Task.sleep(for: .milliseconds(200))
        await restarted.shutdown()
        let account = try #require(try vault.accounts().first { $0.name == "work" })
        #expect(try vault.loadTokens(accountID: account.id)?.refreshToken != nil, "the stored tokens were deleted")
    }

    @Test func anUnreadableAccountCanBeRemovedAndAddedAgain() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        #expect(try await harness.addAndLogin(broker).outcome == .succeeded)
        await broker.shutdown()
        let vault = try await openVault {
            try Vault.open(
                databasePath: harness.directory.appending("tokens.db"), keySource: .defaultKeyFile(path: harness.keyPath))
        }
        try vault.connection.run("UPDATE accounts SET configuration = json_set(configuration, '$.version', 9)")

        let restarted = try await harness.makeBroker()
        await #expect(throws: WireError.self) {
            try await restarted.addAccount(AccountConfiguration(name: "work", issuer: harness.provider.issuer, clientID: "cli"))
        }
        try await restarted.removeAccount(named: "work")
        #expect(await restarted.accounts().accounts.isEmpty)
        #expect(try await harness.addAndLogin(restarted).outcome == .succeeded)
        await restarted.shutdown()
        #expect(try vault.accounts().map(\.name) == ["work"])
    }
}
