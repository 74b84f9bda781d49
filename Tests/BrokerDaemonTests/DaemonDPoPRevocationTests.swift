import BrokerHTTP
import Foundation
import MockProvider
import TestSupport
import Testing

/// Logout of a DPoP account against a provider whose `/revoke` wants a proof for DPoP-bound tokens
/// (`revocationRequiresDPoP`, Okta's behaviour): the real daemon revokes both tokens with proofs
/// of the account's key, nonce challenge included, and the provider no longer honours them.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DaemonDPoPRevocationTests {
    @Test func logoutRevokesDPoPBoundTokensWithAProof() async throws {
        let (provider, harness) = try DaemonDPoPTests.setup { $0.revocationRequiresDPoP = true }
        defer { harness.remove() }
        let daemon = try await DaemonDPoPTests.ready(harness)
        try #require(try await harness.authctl(DaemonDPoPTests.add(provider)).status == 0, "\(daemon.log)")
        try await harness.login("work")
        let accessToken = try await harness.authctl(["token", "work"]).stdout.trimmingCharacters(in: .newlines)

        // The knob bites: without a proof the provider keeps the bound token alive.
        let bare = try await Self.revokeWithoutProof(accessToken, at: provider.url("revoke"))
        #expect(bare.status == 400 && String(decoding: bare.body, as: UTF8.self).contains("invalid_dpop_proof"))
        #expect(provider.stats.revocations == 0)

        let logout = try await harness.authctl(["logout", "work"])
        #expect(logout.status == 0 && logout.stderr.contains("tokens revoked at the provider"), "\(logout.stderr)\n\(daemon.log)")
        let stats = provider.stats
        #expect(stats.revokedHints == ["refresh_token", "access_token"], "\(stats)")
        #expect(stats.liveRefreshTokens == 0, "\(stats)")
        #expect(
            stats.dpopProofsRefused["wrongKey"] == nil && stats.dpopProofsRefused["missing"] == 1, "\(stats.dpopProofsRefused)")
        #expect(try await daemon.stop() == 0)
        await provider.stop()
    }

    /// What a client without DPoP sends: RFC 7009's form, no `DPoP` header.
    static func revokeWithoutProof(_ token: String, at url: String) async throws -> HTTPResponse {
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(totalTimeout: .seconds(10), maxIdleConnectionsPerHost: 0))
        let body = "token=\(token)&token_type_hint=access_token&client_id=mock-client"
        return try await client.send(
            HTTPClientRequest(
                method: "POST", url: url, headers: HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded")]),
                body: Array(body.utf8)))
    }
}
