import BrokerCore
import BrokerCrypto
import BrokerHTTP
import BrokerStore
import Foundation
import Testing
import WireFormats

@Suite struct RevocationLogoutTests {
    let tokens = TokenSet(
        accessToken: Secret("at"), refreshToken: Secret("rt"), idToken: Secret("id.token.value"),
        obtainedAt: Date().timeIntervalSince1970)

    @Test func revokesRefreshTokenThenAccessTokenWithHints() async throws {
        let transport = FakeTransport()
        transport.on("\(testIssuer)/revoke", .status(200), .status(503))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        let config = ClientConfiguration(clientID: "c", authentication: .clientSecretBasic(Secret("s")))
        let results = try await client.revoke(tokens, metadata: testMetadata(), client: config)
        #expect(results.map(\.tokenTypeHint) == ["refresh_token", "access_token"])
        #expect(results[0].error == nil)
        #expect(results[1].error?.disposition == .transient(retryAfter: nil))
        let bodies = transport.requests.map { formFields($0.body) }
        #expect(
            bodies == [["token": "rt", "token_type_hint": "refresh_token"], ["token": "at", "token_type_hint": "access_token"]])
        #expect(transport.requests.allSatisfy { $0.headers["Authorization"]?.hasPrefix("Basic ") == true })
    }

    @Test func aTokenTheProviderCallsAlreadyInvalidCountsAsRevokedButOtherRefusalsDoNot() async throws {
        let transport = FakeTransport()
        transport.on(
            "\(testIssuer)/revoke",
            .json(["error": "invalid_token", "error_description": "Token expired or revoked"], status: 400),
            .json(["error": "invalid_client"], status: 400))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        let results = try await client.revoke(tokens, metadata: testMetadata(), client: ClientConfiguration(clientID: "c"))
        #expect(results[0].error == nil, "Google's 400 invalid_token for a dead token")
        #expect(results[1].error != nil)
    }

    @Test func revocationNeedsAnEndpoint() async throws {
        var metadata = testMetadata()
        metadata.revocationEndpoint = nil
        let client = OIDCClient(transport: FakeTransport(), time: TestTime().time)
        await #expect(throws: OIDCError.missingEndpoint(.revocation)) {
            try await client.revoke(tokens, metadata: metadata, client: ClientConfiguration(clientID: "c"))
        }
    }

    @Test func logoutURLCarriesHintClientAndRedirect() throws {
        let client = OIDCClient(transport: FakeTransport(), time: TestTime().time)
        let config = ClientConfiguration(clientID: "c", postLogoutRedirectURI: "http://127.0.0.1:9/bye")
        let url = try client.logoutURL(metadata: testMetadata(), client: config, tokens: tokens, state: "s1")
        #expect(url.hasPrefix("\(testIssuer)/logout?"))
        #expect(
            queryFields(url) == [
                FormField("id_token_hint", "id.token.value"), FormField("client_id", "c"),
                FormField("post_logout_redirect_uri", "http://127.0.0.1:9/bye"), FormField("state", "s1"),
            ])
        let bare = try client.logoutURL(metadata: testMetadata(), client: ClientConfiguration(clientID: "c"), tokens: nil)
        #expect(queryFields(bare) == [FormField("client_id", "c")])
    }

    @Test func userInfoUsesTheBearerTokenAndChecksTheSubject() async throws {
        let transport = FakeTransport()
        transport.on("\(testIssuer)/userinfo", .json(["sub": "u1", "email": "u@example.com"]), .json(["sub": "u2"]))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        // The claims of a set are its ID token's (validated when it was received).
        var withClaims = tokens
        withClaims.idToken = .token(
            Secret(
                Base64URL.encode(Array(#"{"alg":"RS256"}"#.utf8)) + "." + Base64URL.encode(TestPayload.claims(sub: "u1"))
                    + ".c2ln"))
        #expect(withClaims.idTokenClaims == (try IDTokenClaims(payload: TestPayload.claims(sub: "u1"))))
        let info = try await client.userInfo(metadata: testMetadata(), tokens: withClaims)
        #expect(info == UserInfo(subject: "u1", email: "u@example.com"))
        #expect(transport.requests[0].headers["Authorization"] == "Bearer at")
        await #expect(throws: OIDCError.userInfoSubjectMismatch) {
            try await client.userInfo(metadata: testMetadata(), tokens: withClaims)
        }
    }
}

enum TestPayload {
    static func claims(sub: String) -> [UInt8] {
        Array(#"{"iss":"\#(testIssuer)","sub":"\#(sub)","aud":"c","exp":2000000000,"iat":1800000000}"#.utf8)
    }
}
