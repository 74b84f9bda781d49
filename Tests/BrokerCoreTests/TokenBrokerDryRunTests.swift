import BrokerCore
import BrokerProtocol
import Testing

/// `PUT /v1/accounts/{name}?dry_run=1&keep_client_secret=1` and `POST /v1/accounts?dry_run=1` on the
/// broker (what `authctl account update` asks before it changes anything, and `apply` checks with).
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerDryRunTests {
    @Test func aDryRunSaysTheOutcomeAndChangesNothing() async throws {
        let fixture = try await MockBrokerFixture.loggedIn()
        let token = try #require(await fixture.currentToken)
        let scopes = try await fixture.broker.updateAccount(
            fixture.configuration(scopes: ["openid", "offline_access"]), dryRun: true)
        #expect(scopes.outcome == .signedOut && scopes.account.state == .active)
        #expect(scopes.account.configuration?.scopes == MockBrokerFixture.scopes, "the answer shows the account as it is")
        let git = try await fixture.broker.updateAccount(fixture.configuration(gitUsername: "alice"), dryRun: true)
        #expect(git.outcome == .updated)
        #expect(try await fixture.broker.updateAccount(fixture.configuration(), dryRun: true).outcome == .unchanged)
        #expect(await fixture.currentToken == token)
        #expect(try await fixture.broker.account(named: "work").configuration?.gitUsername == nil)
        var invalid = fixture.configuration()
        invalid.redirectHost = "example.com"
        await #expect(throws: WireError.self) { try await fixture.broker.updateAccount(invalid, dryRun: true) }
        await fixture.stop()
    }

    @Test func keepingTheClientSecretKeepsTheSealedOne() async throws {
        let fixture = try await MockBrokerFixture.loggedIn()
        var confidential = fixture.configuration()
        confidential.clientSecret = "s3cret"
        #expect(try await fixture.broker.updateAccount(confidential).outcome == .signedOut)
        let plain = fixture.configuration()
        #expect(try await fixture.broker.updateAccount(plain, keepClientSecret: true, dryRun: true).outcome == .unchanged)
        #expect(try await fixture.broker.updateAccount(plain, keepClientSecret: true).outcome == .unchanged)
        #expect(try await fixture.broker.updateAccount(plain, dryRun: true).outcome == .updated, "without it the secret goes")
        var other = fixture.configuration()
        other.clientSecret = "another"
        #expect(
            try await fixture.broker.updateAccount(other, keepClientSecret: true).outcome == .updated,
            "a given secret replaces it")
        // Never kept for another destination: the issuer, discovery URL, endpoints or client id.
        var moved = fixture.configuration()
        moved.endpoints = ManualEndpoints(authorization: "http://127.0.0.1:9/authorize", token: "http://127.0.0.1:9/token")
        var renamedClient = fixture.configuration()
        renamedClient.clientID = "another-client"
        var otherIssuer = fixture.configuration()
        otherIssuer.issuer = "http://127.0.0.1:9"
        for changed in [moved, renamedClient, otherIssuer] {
            for dryRun in [true, false] {
                do {
                    _ = try await fixture.broker.updateAccount(changed, keepClientSecret: true, dryRun: dryRun)
                    Issue.record("the secret was kept for \(changed)")
                } catch {
                    #expect(error.code == .invalidRequest && error.message.contains("needs its client secret again"), "\(error)")
                }
            }
        }
        #expect(try await fixture.broker.account(named: "work").configuration?.clientID == "mock-client")
        await fixture.stop()
    }

    @Test func aDryRunAddChecksWithoutAdding() async throws {
        let fixture = try await MockBrokerFixture.loggedIn()
        var new = fixture.configuration()
        new.name = "new"
        let status = try await fixture.broker.addAccount(new, owner: testRequester.uid, dryRun: true)
        #expect(status.name == "new" && status.state == .loggedOut)
        #expect(await fixture.broker.accounts().accounts.map(\.name) == ["work"])
        await #expect(throws: WireError.self) {
            try await fixture.broker.addAccount(fixture.configuration(), owner: testRequester.uid, dryRun: true)
        }
        // Discovery runs as the change would: an issuer nothing answers at is refused.
        new.issuer = "http://127.0.0.1:9"
        await #expect(throws: WireError.self) { try await fixture.broker.addAccount(new, owner: testRequester.uid, dryRun: true) }
        var moved = fixture.configuration()
        moved.issuer = "http://127.0.0.1:9"
        await #expect(throws: WireError.self) { try await fixture.broker.updateAccount(moved, dryRun: true) }
        #expect(try await fixture.broker.account(named: "work").configuration?.issuer == fixture.provider.issuer)
        await fixture.stop()
    }
}
