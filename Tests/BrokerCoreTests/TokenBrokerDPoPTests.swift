import BrokerCore
import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import Foundation
import MockProvider
import TestSupport
import Testing
import WireFormats

import class BrokerStore.Vault

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

    /// A broker over a mock with DPoP required and nonces on, with account "bound" (`--dpop`) signed in.
    static func signedIn(scopes: [String] = ["openid", "offline_access"], allowNarrowing: Bool? = nil) async throws
        -> (MockProvider, TokenBroker, TemporaryDirectory)
    {
        var knobs = MockProviderConfiguration()
        knobs.dpop = .required
        knobs.dpopNonces = true
        let provider = try MockProvider(configuration: knobs)
        let directory = try TemporaryDirectory(prefix: "authbroker-broker-dpop")
        let broker = try await TokenBrokerMockProviderTests.makeBroker(
            provider, in: directory, clock: TestClock(), logs: LogCapture())
        _ = try await broker.addAccount(
            AccountConfiguration(
                name: "bound", issuer: provider.issuer, clientID: "mock-client", scopes: scopes, dpop: true,
                allowNarrowing: allowNarrowing))
        let started = try await broker.startLogin(account: TokenBroker.key("bound"), request: LoginRequest(timeoutSeconds: 60))
        #expect(try await TokenBrokerMockProviderTests.completeLogin(started, on: broker).outcome == .succeeded)
        return (provider, broker, directory)
    }

    @Test func aProofForTheResourceIsAcceptedAndABearerAccountIsRefused() async throws {
        let (provider, broker, directory) = try await Self.signedIn()
        defer { directory.remove() }
        let account = TokenBroker.key("bound")

        let url = provider.url("resource")
        let first = try await broker.dpopProof(account: account, request: DPoPProofRequest(method: "GET", url: url, nonce: nil))
        #expect(first.tokenType == "DPoP")
        #expect(try await broker.token(account: "bound", minTTL: nil).tokenType == "DPoP")
        // The resource server wants its own nonce: the caller passes it on, and the proof then passes.
        let challenge = try await Self.resource(provider, first)
        let nonce = try #require(challenge.headers["DPoP-Nonce"], "\(challenge.status)")
        #expect(challenge.status == 401)
        let second = try await broker.dpopProof(
            account: account, request: DPoPProofRequest(method: "GET", url: url, nonce: nonce))
        #expect(try await Self.resource(provider, second).status == 200)

        await #expect(throws: WireError.self) {
            _ = try await broker.dpopProof(
                account: account, request: DPoPProofRequest(method: "GET", url: "ftp://example.com/", nonce: nil))
        }
        do {
            _ = try await broker.dpopProof(
                account: TokenBroker.key("mock"), request: DPoPProofRequest(method: "GET", url: url, nonce: nil))
            Issue.record("a Bearer account got a proof")
        } catch {
            #expect(error.code == .notDPoP)
        }
        await broker.shutdown()
        await provider.stop()
    }

    /// A proof for the account's own authorization server (plus the token) could redeem or refresh
    /// there with the account's key: refused on both paths, however the URL is spelt; a
    /// resource's proof and userinfo's are still made.
    @Test func aProofForTheAuthorizationServersOwnEndpointsIsRefused() async throws {
        let (provider, broker, directory) = try await Self.signedIn()
        defer { directory.remove() }
        let account = TokenBroker.key("bound")
        let token = provider.url("token")
        let spellings = [
            token, token + "/", token + "?x=1", token.replacingOccurrences(of: "/token", with: "/TOKEN"),
            token.replacingOccurrences(of: "/token", with: "/./%74oken"), provider.url("revoke"),
            provider.url("device_authorization"),
        ]
        for url in spellings {
            let request = DPoPProofRequest(method: "POST", url: url, nonce: nil)
            // The fast path leaves it to the actor path, which refuses it with its reason.
            #expect(
                broker.cachedDPoPProof(account: account, request: request, now: Date().timeIntervalSince1970) == nil, "\(url)")
            do {
                _ = try await broker.dpopProof(account: account, request: request)
                Issue.record("a proof for \(url) was made")
            } catch {
                #expect(error.code == .invalidRequest)
                #expect(error.message.contains("authorization server"), "\(error.message)")
            }
        }
        let resource = DPoPProofRequest(method: "GET", url: provider.url("resource"), nonce: nil)
        _ = try await broker.dpopProof(account: account, request: resource)
        #expect(broker.cachedDPoPProof(account: account, request: resource, now: Date().timeIntervalSince1970) != nil)
        _ = try await broker.dpopProof(
            account: account, request: DPoPProofRequest(method: "GET", url: provider.url("userinfo"), nonce: nil))
        await broker.shutdown()
        await provider.stop()
    }

    /// The fast path signs with the `ath` the token cache keeps: after the token changes (a
    /// rejected token refreshed), the proof's `ath` is the new token's, and the resource takes it.
    @Test func theFastPathsAthIsTheServedTokensAcrossARefresh() async throws {
        let (provider, broker, directory) = try await Self.signedIn()
        defer { directory.remove() }
        let account = TokenBroker.key("bound")
        let request = DPoPProofRequest(method: "GET", url: provider.url("resource"), nonce: nil)
        let before = try #require(broker.cachedDPoPProof(account: account, request: request, now: WallClock.now()))
        #expect(try Self.ath(before.proof) == DPoPProof.accessTokenHash(Secret(before.accessToken)))

        _ = try await broker.tokenRejected(account: account, accessToken: before.accessToken)
        var after = before
        for _ in 0..<500 where after.accessToken == before.accessToken {
            try await Task.sleep(for: .milliseconds(10))
            after = broker.cachedDPoPProof(account: account, request: request, now: WallClock.now()) ?? before
        }
        #expect(after.accessToken != before.accessToken, "no refresh within 5 s")
        #expect(try Self.ath(after.proof) == DPoPProof.accessTokenHash(Secret(after.accessToken)))
        #expect(try Self.ath(after.proof) != Self.ath(before.proof))
        let nonce = try #require(try await Self.resource(provider, after).headers["DPoP-Nonce"])
        let withNonce = try #require(
            broker.cachedDPoPProof(
                account: account, request: DPoPProofRequest(method: "GET", url: provider.url("resource"), nonce: nonce),
                now: WallClock.now()))
        #expect(try await Self.resource(provider, withNonce).status == 200)
        await broker.shutdown()
        await provider.stop()
    }

    /// The `ath` claim of a compact proof.
    static func ath(_ proof: String) throws -> String? {
        let claims = try Base64URL.decode(proof.split(separator: ".")[1])
        return (try JSONSerialization.jsonObject(with: Data(claims)) as? [String: Any])?["ath"] as? String
    }
}

/// Narrowed tokens for a DPoP account: the narrowed refresh is proved with the account's key, the
/// answer is a DPoP token bound to that key, and the proof route serves it with its own proof.
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerDPoPNarrowingTests {
    @Test func aNarrowedProofCarriesANarrowedTokenBoundToTheAccountsKey() async throws {
        let (provider, broker, directory) = try await TokenBrokerDPoPTests.signedIn(
            scopes: ["openid", "offline_access", "profile"], allowNarrowing: true)
        defer { directory.remove() }
        let account = TokenBroker.key("bound")
        let plain = try await broker.token(account: account, minTTL: nil)

        let narrowing = try TokenNarrowing(scopes: ["profile"], resources: [], audience: nil)
        let url = provider.url("resource")
        let first = try await broker.dpopProof(
            account: account, request: DPoPProofRequest(method: "GET", url: url, narrowing: narrowing))
        #expect(first.tokenType == "DPoP" && first.accessToken != plain.accessToken)
        #expect(provider.stats.refreshScopes == ["profile"], "\(provider.stats.refreshScopes)")
        let narrowed = try await broker.narrowedToken(account: account, narrowing: narrowing, minTTL: nil)
        #expect(narrowed.tokenType == "DPoP" && narrowed.accessToken == first.accessToken, "one narrowed refresh, cached")

        let challenge = try await TokenBrokerDPoPTests.resource(provider, first)
        let nonce = try #require(challenge.headers["DPoP-Nonce"], "\(challenge.status)")
        let second = try await broker.dpopProof(
            account: account, request: DPoPProofRequest(method: "GET", url: url, nonce: nonce, narrowing: narrowing))
        #expect(try await TokenBrokerDPoPTests.resource(provider, second).status == 200, "bound to the account's key")
        #expect(provider.stats.refreshes == 1 && provider.stats.dpopProofsRefused["wrongKey"] == nil, "\(provider.stats)")
        await broker.shutdown()
        await provider.stop()
    }
}
