import BrokerCore
import BrokerHTTP
import BrokerProtocol
import class BrokerStore.Vault
import Foundation
import MockProvider
import TestSupport
import Testing

/// `TokenBroker.dpopProof` against the in-process mock with DPoP required and nonces on: the
/// proof it signs is accepted by the mock's resource server (key, `ath`, the resource's nonce),
/// and a Bearer account is refused with `not_dpop`.
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerDPoPTests {
    static func resource(_ provider: MockProvider, _ grant: DPoPProofGrant) async throws -> HTTPResponse {
        let headers = HTTPHeaders([("Authorization", "DPoP " + grant.accessToken), ("DPoP", grant.proof)])
        return try await MockProviderHarness.httpClient(pooled: false).send(
            HTTPClientRequest(url: provider.url("resource"), headers: headers))
    }

    @Test func aProofForTheResourceIsAcceptedAndABearerAccountIsRefused() async throws {
        var knobs = MockProviderConfiguration()
        knobs.dpop = .required
        knobs.dpopNonces = true
        let provider = try MockProvider(configuration: knobs)
        let directory = try TemporaryDirectory(prefix: "authbroker-broker-dpop")
        defer { directory.remove() }
        let broker = try await TokenBrokerMockProviderTests.makeBroker(provider, in: directory, clock: TestClock(), logs: LogCapture())
        _ = try await broker.addAccount(AccountConfiguration(
            name: "bound", issuer: provider.issuer, clientID: "mock-client", scopes: ["openid", "offline_access"], dpop: true))
        let account = TokenBroker.key("bound")
        let started = try await broker.startLogin(account: account, request: LoginRequest(timeoutSeconds: 60))
        #expect(try await TokenBrokerMockProviderTests.completeLogin(started, on: broker).outcome == .succeeded)

        let url = provider.url("resource")
        let first = try await broker.dpopProof(account: account, method: "GET", url: url, nonce: nil)
        #expect(first.tokenType == "DPoP")
        #expect(try await broker.token(account: "bound", minTTL: nil).tokenType == "DPoP")
        // The resource server wants its own nonce: the caller passes it on, and the proof then passes.
        let challenge = try await Self.resource(provider, first)
        let nonce = try #require(challenge.headers["DPoP-Nonce"], "\(challenge.status)")
        #expect(challenge.status == 401)
        let second = try await broker.dpopProof(account: account, method: "GET", url: url, nonce: nonce)
        #expect(try await Self.resource(provider, second).status == 200)

        await #expect(throws: WireError.self) {
            _ = try await broker.dpopProof(account: account, method: "GET", url: "ftp://example.com/", nonce: nil)
        }
        do {
            _ = try await broker.dpopProof(account: TokenBroker.key("mock"), method: "GET", url: url, nonce: nil)
            Issue.record("a Bearer account got a proof")
        } catch {
            #expect(error.code == .notDPoP)
        }
        await broker.shutdown()
        await provider.stop()
    }
}
