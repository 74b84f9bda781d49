import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import TestSupport
import Testing

/// Provider profiles shaped like the real ones: the URLs the engine builds and the requests it
/// sends are asserted field by field.
@Suite struct ProviderFixtureTests {
    // Shopify Customer Account API: the issuer is https://shopify.com/authentication/<shop id>;
    // the discovery document is served at the shop's own domain root.
    static let shopIssuer = "https://shopify.com/authentication/47328854173"
    static let shopDiscovery = "https://example-shop.myshopify.com/.well-known/openid-configuration"
    static var shopDocument: [String: Any] {
        [
            "issuer": shopIssuer,
            "authorization_endpoint": "\(shopIssuer)/oauth/authorize",
            "token_endpoint": "\(shopIssuer)/oauth/token",
            "end_session_endpoint": "\(shopIssuer)/logout",
            "jwks_uri": "\(shopIssuer)/.well-known/jwks.json",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "customer-account-api:full"],
        ]
    }

    @Test func shopifyCustomerAccountLoginCycle() async throws {
        let key = try TestSigningKey(.rsa(bits: 2048), kid: "shopify-1")
        let time = TestTime()
        let transport = FakeTransport()
        transport.on(Self.shopDiscovery, .json(Self.shopDocument))
        transport.on(
            "\(Self.shopIssuer)/.well-known/jwks.json",
            .response(HTTPResponse(status: 200, body: try TestSigningKey.jwksJSON([key]))))
        let client = OIDCClient(transport: transport, time: time.time)
        let outcome = try await client.discover(issuer: Self.shopIssuer, source: .discovery(documentURL: Self.shopDiscovery))
        #expect(outcome.isNew && outcome.metadata.endSessionEndpoint == "\(Self.shopIssuer)/logout")

        let config = ClientConfiguration(
            clientID: "shp_3a7b9c1d-2e4f", scopes: ["openid", "email", "customer-account-api:full"],
            postLogoutRedirectURI: "http://127.0.0.1:49152/logged-out")
        let request = try client.authorizationRequest(
            metadata: outcome.metadata, client: config, redirectURI: try RedirectURI(port: 49152), randomBytes: countingRandom())
        let login = request.pendingLogin
        #expect(request.url.hasPrefix("\(Self.shopIssuer)/oauth/authorize?"))
        #expect(
            queryFields(request.url) == [
                FormField("response_type", "code"), FormField("client_id", "shp_3a7b9c1d-2e4f"),
                FormField("redirect_uri", "http://127.0.0.1:49152/callback"),
                FormField("scope", "openid email customer-account-api:full"), FormField("state", login.state),
                FormField("nonce", try #require(login.nonce)),
                FormField("code_challenge", PKCE(codeVerifier: login.codeVerifier).codeChallenge),
                FormField("code_challenge_method", "S256"),
            ])

        let now = time.now.timeIntervalSince1970
        let idToken = try key.sign(claims: [
            "iss": Self.shopIssuer, "sub": "gid://shopify/Customer/7", "aud": "shp_3a7b9c1d-2e4f",
            "exp": now + 3600, "iat": now, "nonce": try #require(login.nonce), "email": "buyer@example.com",
        ])
        transport.on(
            "\(Self.shopIssuer)/oauth/token",
            .json([
                "access_token": "shcat_abc", "token_type": "Bearer", "expires_in": 7200, "refresh_token": "shcrt_def",
                "id_token": idToken,
            ]))
        var callback = LoginCallback(pendingLogin: login)
        let redirect = "/callback?code=c0de&state=\(login.state)"
        guard case .completed(let code, _) = callback.handle(target: redirect, now: time.now) else {
            Issue.record("callback must complete")
            return
        }
        let tokens = try await client.exchangeCode(code, pendingLogin: login, metadata: outcome.metadata, client: config).tokens
        #expect(tokens.accessToken == Secret("shcat_abc") && tokens.refreshToken == Secret("shcrt_def"))
        #expect(tokens.idTokenClaims?.email == "buyer@example.com")
        #expect(tokens.expiresAt == time.now.timeIntervalSince1970 + 7200)
        let tokenRequest = try #require(transport.requests.last { $0.url.hasSuffix("/oauth/token") })
        #expect(tokenRequest.headers["Authorization"] == nil)
        #expect(
            formFields(tokenRequest.body) == [
                "grant_type": "authorization_code", "code": "c0de", "redirect_uri": "http://127.0.0.1:49152/callback",
                "code_verifier": login.codeVerifier.revealString(), "client_id": "shp_3a7b9c1d-2e4f",
            ])

        let logout = try client.logoutURL(metadata: outcome.metadata, client: config, tokens: tokens)
        #expect(logout.hasPrefix("\(Self.shopIssuer)/logout?"))
        #expect(
            queryFields(logout) == [
                FormField("id_token_hint", idToken), FormField("client_id", "shp_3a7b9c1d-2e4f"),
                FormField("post_logout_redirect_uri", "http://127.0.0.1:49152/logged-out"),
            ])
    }

    @Test func shopifyIDTokenWithWrongNonceIsRefused() async throws {
        let key = try TestSigningKey(.rsa(bits: 2048), kid: "shopify-1")
        let time = TestTime()
        let transport = FakeTransport()
        transport.on(
            "\(Self.shopIssuer)/.well-known/jwks.json",
            .response(HTTPResponse(status: 200, body: try TestSigningKey.jwksJSON([key]))))
        let metadata = try JSONDecoder().decode(
            ProviderMetadata.self, from: JSONSerialization.data(withJSONObject: Self.shopDocument))
        let client = OIDCClient(transport: transport, time: time.time)
        let config = ClientConfiguration(clientID: "shp_1", scopes: ["openid", "email"])
        let login = try client.authorizationRequest(metadata: metadata, client: config, redirectURI: try RedirectURI(port: 1))
            .pendingLogin
        let now = time.now.timeIntervalSince1970
        let idToken = try key.sign(claims: [
            "iss": Self.shopIssuer, "sub": "s", "aud": "shp_1", "exp": now + 60, "iat": now, "nonce": "stale",
        ])
        transport.on("\(Self.shopIssuer)/oauth/token", .json(["access_token": "a", "token_type": "Bearer", "id_token": idToken]))
        await #expect(throws: OIDCError.idToken(.nonceMismatch)) {
            try await client.exchangeCode(Secret("c"), pendingLogin: login, metadata: metadata, client: config)
        }
    }
}
