import BrokerProtocol
import BrokerStore
import FoundationEssentials
import Testing

@testable import BrokerCore

/// What a restart leaves in memory per account (docs/BENCHMARKS-archive.md, "Memory per account"): accounts of one
/// provider source hold one metadata box between them, every machine the broker's one refresh
/// settings object, and the restore's page cache is given back.
@Suite struct TokenBrokerRestoreMemoryTests {
    /// Three accounts of the fake provider, logged in, then the broker restarted on the same vault.
    static func restarted(_ harness: BrokerHarness) async throws -> TokenBroker {
        let first = try await harness.makeBroker()
        for name in ["one", "two", "three"] {
            #expect(try await harness.addAndLogin(first, name: name).outcome == .succeeded)
        }
        await first.shutdown()
        return try await harness.makeBroker()
    }

    static func runtimes(_ broker: TokenBroker) async -> [AccountRuntime] {
        await broker.accounts.values.sorted { $0.name < $1.name }
    }

    @Test func restoredAccountsOfOneProviderShareOneMetadataBox() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await Self.restarted(harness)
        defer { Task { await broker.shutdown() } }
        let runtimes = await Self.runtimes(broker)
        #expect(runtimes.count == 3)
        #expect(runtimes.allSatisfy { $0.metadata?.metadata.issuer == harness.provider.issuer })
        #expect(runtimes.allSatisfy { $0.metadataStorage.sharesStorage(with: runtimes[0].metadataStorage) })
    }

    @Test func restoredTokenSetsShareOneCopyOfEachGrantedScope() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await Self.restarted(harness)
        defer { Task { await broker.shutdown() } }
        let scopes = await Self.runtimes(broker).compactMap { $0.machine.currentTokens?.scope }
        try #require(scopes.count == 3 && Set(scopes).count == 1 && scopes[0].utf8.count > 15, "\(scopes)")
        let storage = scopes.map { scope in
            var scope = scope
            return scope.withUTF8 { UInt(bitPattern: $0.baseAddress) }
        }
        #expect(Set(storage).count == 1, "one string, not one per account")
    }

    @Test func everyAccountsMachineSharesTheBrokersRefreshSettings() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await Self.restarted(harness)
        defer { Task { await broker.shutdown() } }
        let settings = await broker.refreshSettings
        let runtimes = await Self.runtimes(broker)
        #expect(runtimes.count == 3 && runtimes.allSatisfy { $0.machine.settings === settings })
        let options = await broker.options
        #expect(settings.policy == options.refreshPolicy && settings.backoff == options.refreshBackoff)
    }

    @Test func freshMetadataIsSharedByEveryAccountOfItsSource() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await Self.restarted(harness)
        defer { Task { await broker.shutdown() } }
        let before = await Self.runtimes(broker)
        let configuration = before[0].configuration
        let fresh = try #require(before[0].metadata)
        await broker.adopt(
            CachedProviderMetadata(metadata: fresh.metadata, documentURL: fresh.documentURL, fetchedAt: Date()),
            for: configuration)
        let after = await Self.runtimes(broker)
        #expect(!after[0].metadataStorage.sharesStorage(with: before[0].metadataStorage), "the new metadata is adopted")
        #expect(after.allSatisfy { $0.metadataStorage.sharesStorage(with: after[0].metadataStorage) })
    }

    @Test func theRestoreLeavesNoPagesInTheVaultsPageCache() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await Self.restarted(harness)
        defer { Task { await broker.shutdown() } }
        // SQLite keeps the database's first page; without the release the restore's pages stay.
        let left = try await broker.worker.perform { $0.cacheBytesUsed }
        #expect(left < 8 * 1024, "\(left) bytes")
        // Later reads fill it again as they need.
        let read = try await broker.worker.perform { vault in
            try vault.batch { try vault.sealedAccounts { _ in () }.count }
        }
        #expect(read == 3)
        #expect(try await broker.worker.perform { $0.cacheBytesUsed } > 3 * left)
    }

    /// The account gauge is counts per owner and state, kept as accounts change (no entry per
    /// account): restored, logged out, removed and added again, it always matches the accounts.
    @Test func theAccountGaugeCountsEveryChange() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await Self.restarted(harness)
        defer { Task { await broker.shutdown() } }
        func gauge(_ state: String) -> String? {
            broker.metrics(owner: testRequester.uid).split(separator: "\n")
                .first { $0.hasPrefix("authbroker_accounts{state=\"\(state)\"}") }.map { String($0.split(separator: " ").last!) }
        }
        #expect(gauge("active") == "3" && gauge("logged_out") == "0")
        _ = try await broker.logout(account: "two")
        #expect(gauge("active") == "2" && gauge("logged_out") == "1")
        try await broker.removeAccount(named: "two")
        #expect(gauge("active") == "2" && gauge("logged_out") == "0")
        try await broker.removeAccount(named: "one")
        #expect(gauge("active") == "1")
        #expect(try await harness.addAndLogin(broker, name: "four").outcome == .succeeded)
        #expect(gauge("active") == "2" && gauge("logged_out") == "0")
        #expect(
            broker.metrics(owner: testRequester.uid + 1).contains("authbroker_accounts{state=\"active\"} 0\n"), "another owner's")
    }
}
