import BrokerCore
import BrokerProtocol
import Testing

@testable import BrokerStore

/// docs/security.md: provider metadata is cached per source (issuer + discovery document URL),
/// manual endpoints are never cached.
@Suite struct TokenBrokerMetadataCacheTests {
    @Test func discoveryIsCachedUnderItsDocumentAndManualEndpointsNever() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        let issuer = harness.provider.issuer
        _ = try await broker.addAccount(
            AccountConfiguration(
                name: "manual", issuer: issuer, clientID: "cli",
                endpoints: ManualEndpoints(authorization: "\(issuer)/authorize", token: "\(issuer)/token")))
        _ = try await broker.addAccount(AccountConfiguration(name: "discovered", issuer: issuer, clientID: "cli"))
        await broker.shutdown()

        let vault = try await openVault {
            try Vault.open(
                databasePath: harness.directory.appending("tokens.db"), keySource: .defaultKeyFile(path: harness.keyPath))
        }
        let rows = try vault.connection.query("SELECT issuer, document_url FROM provider_metadata") {
            "\($0.text(0)) \($0.text(1))"
        }
        #expect(rows == ["\(issuer) \(issuer)/.well-known/openid-configuration"])
    }
}
