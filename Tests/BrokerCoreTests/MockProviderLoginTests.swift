import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import MockProvider
import Testing

/// The whole authorization-code flow against the in-process mock provider over real sockets.
@Suite struct MockProviderLoginTests {
    @Test func loginRefreshRevokeLogoutCycle() async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        let (result, page) = try await harness.login()
        #expect(page.status == 200 && page.text.contains("Signed in"))
        let login = try result.get()
        #expect(login.subject == "mock-user" && login.claims?.email == "user@mock.example")
        #expect(login.claims?.nonce != nil && login.tokens.refreshToken != nil)
        #expect(try await harness.client.userInfo(metadata: harness.metadata, tokens: login.tokens).subject == "mock-user")

        let refreshed = try await harness.client.refresh(login.tokens, metadata: harness.metadata, client: harness.configuration)
        #expect(refreshed.refreshToken != nil && refreshed.refreshToken != login.tokens.refreshToken)
        #expect(refreshed.accessToken != login.tokens.accessToken && refreshed.idTokenClaims?.subject == "mock-user")

        let revocations = try await harness.client.revoke(refreshed, metadata: harness.metadata, client: harness.configuration)
        #expect(
            revocations.map(\.tokenTypeHint) == ["refresh_token", "access_token"] && revocations.allSatisfy { $0.error == nil })
        let stats = harness.provider.stats
        #expect(stats.revocations == 2 && stats.revokedHints == ["refresh_token", "access_token"])
        #expect(stats.codeExchanges == 1 && stats.refreshes == 1 && stats.tokensIssued == 2)
        await #expect(throws: OIDCError.self) {
            try await harness.client.refresh(refreshed, metadata: harness.metadata, client: harness.configuration)
        }

        let logout = try harness.client.logoutURL(metadata: harness.metadata, client: harness.configuration, tokens: refreshed)
        #expect(logout.hasPrefix(harness.provider.url("end_session") + "?id_token_hint="))
        #expect(try await browserGet(logout).status == 200)
        #expect(harness.provider.stats.lastEndSessionHadValidIDTokenHint == true)
    }

    static let defects: [(IDTokenDefect, IDTokenError)] = [
        (.badSignature, .badSignature),
        (.wrongIssuer, .wrongIssuer(expected: "", found: "")),
        (.wrongAudience, .wrongAudience(clientID: "", audiences: [])),
        (.expired, .expired(expiresAt: Date())),
        (.futureIssuedAt, .issuedInFuture(issuedAt: Date())),
        (.badNonce, .nonceMismatch),
        (.algNone, .algorithmNotAllowed("none")),
        (.unknownKid, .unknownKey(kid: "unpublished-key")),
    ]

    @Test(arguments: defects.indices)
    func everyIDTokenDefectIsRefusedDistinctly(_ index: Int) async throws {
        let (defect, expected) = Self.defects[index]
        var knobs = MockProviderConfiguration()
        knobs.idTokenDefect = defect
        let harness = try await MockProviderHarness(knobs)
        defer { Task { await harness.stop() } }
        let (result, page) = try await harness.login()
        guard case .failure(.idToken(let error)) = result else {
            Issue.record("\(defect): expected an ID token refusal, got \(result)")
            return
        }
        #expect(Self.sameCase(error, expected), "\(defect) gave \(error)")
        #expect(page.status == 400 && page.text.contains("ID token refused"))
    }

    /// Same enum case, ignoring associated values that depend on the run (dates, URLs).
    static func sameCase(_ lhs: IDTokenError, _ rhs: IDTokenError) -> Bool {
        switch (lhs, rhs) {
        case (.wrongIssuer, .wrongIssuer), (.wrongAudience, .wrongAudience), (.expired, .expired),
            (.issuedInFuture, .issuedInFuture):
            true
        default: lhs == rhs
        }
    }

    @Test func loginAcceptsES256AndEveryClientAuthenticationMethod() async throws {
        for (method, authentication) in [
            ("client_secret_basic", ClientAuthentication.clientSecretBasic(Secret("s3cr:et+/"))),
            ("client_secret_post", .clientSecretPost(Secret("s3cr:et+/"))),
        ] {
            var knobs = MockProviderConfiguration()
            (knobs.clientAuthentication, knobs.clientSecret, knobs.signingAlgorithm) = (method, "s3cr:et+/", "ES256")
            var harness = try await MockProviderHarness(knobs)
            harness.configuration.authentication = authentication
            #expect(try await harness.loggedIn().subject == "mock-user", "\(method)")
            harness.configuration.authentication = .none
            let (result, _) = try await harness.login()
            guard case .failure(.oauthError(let response, 401, _)) = result else {
                Issue.record("\(method): a public client must be refused, got \(result)")
                await harness.stop()
                continue
            }
            #expect(response.error == "invalid_client" && harness.provider.stats.clientAuthenticationFailures == 1)
            await harness.stop()
        }
    }
}
