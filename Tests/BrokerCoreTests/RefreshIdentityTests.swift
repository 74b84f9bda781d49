import BrokerStore
import MockProvider
import Testing

@testable import BrokerCore

/// A refresh hands back the identity its validation of the new ID token read
/// (`OIDCClient.refreshKeepingIdentity`), which the broker keeps once the set is committed instead
/// of parsing the token a second time: it must be the token's own subject and tenant, or nothing
/// when the answer has no ID token.
@Suite(.timeLimit(.minutes(1)))
struct RefreshIdentityTests {
    static func refreshed(_ knobs: MockProviderConfiguration) async throws -> (RefreshedTokens, TokenSet) {
        let harness = try await MockProviderHarness(knobs)
        defer { Task { await harness.stop() } }
        let login = try await harness.loggedIn()
        let refreshed = try await harness.client.refreshKeepingIdentity(
            login.tokens, metadata: harness.metadata, client: harness.configuration, previousSubject: nil)
        return (refreshed, login.tokens)
    }

    @Test func theIdentityIsTheNewIDTokensOwn() async throws {
        let (refreshed, login) = try await Self.refreshed(MockProviderConfiguration())
        let claims = try #require(refreshed.tokens.idTokenClaims)
        #expect(refreshed.tokens.idToken != login.idToken, "the answer's ID token is the new one")
        #expect(refreshed.newIDTokenIdentity == IDTokenIdentity(subject: claims.subject, tenantID: claims.tenantID))
        #expect(refreshed.newIDTokenIdentity?.subject == "mock-user")
        let kept = refreshed.tokens.keepingIDTokenStored(identity: refreshed.newIDTokenIdentity)
        #expect(kept.idToken == refreshed.tokens.keepingIDTokenStored().idToken, "as parsing the token gives")
    }

    @Test func anEntraTenantIsKept() async throws {
        let tenant = "9122040d-6c67-4c5b-b112-36a304b66dad"
        var knobs = MockProviderConfiguration()
        knobs.entraTenant = tenant
        let (refreshed, _) = try await Self.refreshed(knobs)
        #expect(refreshed.newIDTokenIdentity == IDTokenIdentity(subject: "mock-user", tenantID: tenant))
    }

    @Test func anAnswerWithoutAnIDTokenHasNoNewIdentity() async throws {
        var knobs = MockProviderConfiguration()
        knobs.idTokenOnRefresh = false
        let (refreshed, login) = try await Self.refreshed(knobs)
        #expect(refreshed.newIDTokenIdentity == nil)
        #expect(refreshed.tokens.idToken == login.idToken, "the login's ID token is carried over")
    }
}
