import BrokerCore
import BrokerCrypto
import BrokerHTTP
import BrokerStore
import Foundation
import Testing
import WireFormats

@Suite struct TokenEndpointTests {
    func pendingLogin(scopes: [String] = ["profile"]) throws -> PendingAuthorization {
        try AuthorizationRequest.make(
            metadata: testMetadata(), client: ClientConfiguration(clientID: "c", scopes: scopes),
            redirectURI: try RedirectURI(port: 49152), now: Date(timeIntervalSince1970: 1_800_000_000)
        ).pendingLogin
    }

    func exchange(_ authentication: ClientAuthentication, clientID: String = "c") async throws -> HTTPClientRequest {
        let transport = FakeTransport()
        transport.on("\(testIssuer)/token", .json(["access_token": "at", "token_type": "Bearer", "expires_in": 3600]))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        let login = try pendingLogin()
        _ = try await client.exchangeCode(
            Secret("the-code"), pendingLogin: login, metadata: testMetadata(),
            client: ClientConfiguration(clientID: clientID, authentication: authentication, scopes: ["profile"]))
        return try #require(transport.requests.first)
    }

    @Test func publicClientSendsClientIDAndVerifier() async throws {
        let request = try await exchange(.none)
        #expect(request.method == "POST" && request.url == "\(testIssuer)/token")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.headers["Authorization"] == nil)
        let fields = formFields(request.body)
        #expect(fields["grant_type"] == "authorization_code" && fields["code"] == "the-code")
        #expect(fields["redirect_uri"] == "http://127.0.0.1:49152/callback")
        #expect(fields["code_verifier"]?.count == 43 && fields["client_id"] == "c" && fields["client_secret"] == nil)
    }

    @Test func clientSecretPostPutsTheSecretInTheBody() async throws {
        let request = try await exchange(.clientSecretPost(Secret("s3cret")))
        #expect(request.headers["Authorization"] == nil)
        #expect(formFields(request.body)["client_id"] == "c" && formFields(request.body)["client_secret"] == "s3cret")
    }

    @Test func clientSecretBasicFormEncodesIDAndSecretBeforeBase64() async throws {
        let request = try await exchange(.clientSecretBasic(Secret("p@ss:w rd+/é")), clientID: "my client:1")
        let expected = "my+client%3A1:p%40ss%3Aw+rd%2B%2F%C3%A9"
        #expect(request.headers["Authorization"] == "Basic " + Data(expected.utf8).base64EncodedString())
        #expect(formFields(request.body)["client_id"] == nil && formFields(request.body)["client_secret"] == nil)
    }

    @Test func responseParsing() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func parse(_ object: [String: Any], status: Int = 200) throws(OIDCError) -> TokenResponse {
            guard case .response(let response) = FakeTransport.Reply.json(object, status: status) else { fatalError() }
            return try TokenResponse.parse(response, now: now)
        }
        let full = try parse([
            "access_token": "a", "token_type": "bearer", "expires_in": "60", "refresh_token": "r", "scope": "x y",
        ])
        #expect(
            full.accessToken == Secret("a") && full.expiresIn == 60 && full.refreshToken == Secret("r") && full.scope == "x y")
        #expect(try parse(["access_token": "a", "token_type": "Bearer"]).expiresIn == nil)
        #expect(throws: OIDCError.unsupportedTokenType("")) { try parse(["access_token": "a"]) }  // form answers need a type
        #expect(throws: OIDCError.unsupportedTokenType("DPoP")) { try parse(["access_token": "a", "token_type": "DPoP"]) }
        #expect(throws: OIDCError.self) { try parse(["token_type": "Bearer"]) }
        #expect(throws: OIDCError.self) { try parse(["access_token": "a", "expires_in": -5]) }
        #expect(
            throws: OIDCError.oauthError(
                OAuthErrorResponse(error: "invalid_grant", errorDescription: "used"), status: 400, retryAfter: nil)
        ) {
            try parse(["error": "invalid_grant", "error_description": "used"], status: 400)
        }
    }

    @Test func unknownLifetimeStaysUnknownAndTheBrokerAssumesFifteenMinutes() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let tokens = TokenSet(TokenResponse(accessToken: Secret("a")), requestedScope: nil, receivedAt: now)
        #expect(tokens.expiresAt == nil)
        let account = TokenSet(
            accessToken: Secret("a"), refreshToken: Secret("r"), expiresAt: nil, obtainedAt: now.timeIntervalSince1970)
        #expect(RefreshPolicy().effectiveExpiry(of: account) == now.timeIntervalSince1970 + 900)
    }

    /// RFC 9068 access tokens are JWTs: without `expires_in`, their own `exp` is the best statement
    /// of their lifetime; `expires_in` wins when both are given; a past `exp` (clock skew) is ignored.
    @Test func aJWTAccessTokenWithoutExpiresInExpiresAtItsOwnExp() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func jwt(exp: Double) -> Secret {
            let header = Base64URL.encode(Array(#"{"alg":"RS256","typ":"at+jwt"}"#.utf8))
            let payload = Base64URL.encode(Array(#"{"sub":"u","exp":\#(Int(exp))}"#.utf8))
            return Secret(header + "." + payload + "." + Base64URL.encode([1, 2, 3]))
        }
        func expiry(_ response: TokenResponse) -> Double? {
            TokenSet(response, requestedScope: nil, receivedAt: now).expiresAt
        }
        let future = now.timeIntervalSince1970 + 300
        #expect(expiry(TokenResponse(accessToken: jwt(exp: future))) == future)
        #expect(expiry(TokenResponse(accessToken: jwt(exp: future), expiresIn: 60)) == now.timeIntervalSince1970 + 60)
        #expect(expiry(TokenResponse(accessToken: jwt(exp: now.timeIntervalSince1970 - 5))) == nil)
        #expect(expiry(TokenResponse(accessToken: Secret("opaque.not-a-jwt"))) == nil)
        let refreshed = TokenSet(TokenResponse(accessToken: jwt(exp: future)), requestedScope: nil, receivedAt: now)
            .carryingOver(from: TokenSet(accessToken: Secret("old"), obtainedAt: now.timeIntervalSince1970))
        #expect(refreshed.expiresAt == future)
    }

    @Test func refreshPreservesScopeAndRotatesTheRefreshToken() async throws {
        let transport = FakeTransport()
        transport.on(
            "\(testIssuer)/token",
            .json(["access_token": "at2", "token_type": "Bearer", "expires_in": 60, "refresh_token": "rt2"]),
            .json(["access_token": "at3", "token_type": "Bearer", "expires_in": 60]))
        let time = TestTime()
        let client = OIDCClient(transport: transport, time: time.time)
        let config = ClientConfiguration(clientID: "c", scopes: ["read", "write"])
        let initial = TokenSet(
            accessToken: Secret("at1"), refreshToken: Secret("rt1"), scope: "read write",
            obtainedAt: time.now.timeIntervalSince1970)
        let second = try await client.refresh(initial, metadata: testMetadata(), client: config)
        #expect(second.accessToken == Secret("at2") && second.refreshToken == Secret("rt2"))
        #expect(second.expiresAt == time.now.timeIntervalSince1970 + 60 && second.scope == "read write")
        let third = try await client.refresh(second, metadata: testMetadata(), client: config)
        #expect(third.accessToken == Secret("at3") && third.refreshToken == Secret("rt2"))
        let bodies = transport.requests.map { formFields($0.body) }
        #expect(bodies.map { $0["grant_type"] } == ["refresh_token", "refresh_token"])
        #expect(bodies.map { $0["refresh_token"] } == ["rt1", "rt2"])
        #expect(bodies.map { $0["scope"] } == ["read write", "read write"])
    }

    @Test func refreshWithoutRefreshTokenIsTerminal() async throws {
        let client = OIDCClient(transport: FakeTransport(), time: TestTime().time)
        let tokens = TokenSet(accessToken: Secret("a"), obtainedAt: Date().timeIntervalSince1970)
        await #expect(throws: OIDCError.noRefreshToken) {
            try await client.refresh(tokens, metadata: testMetadata(), client: ClientConfiguration(clientID: "c"))
        }
        #expect(OIDCError.noRefreshToken.disposition == .terminal)
    }

    @Test func secretsNeverAppearInDescriptions() {
        let secret = ClientAuthentication.clientSecretBasic(Secret("hunter2"))
        let tokens = TokenSet(
            accessToken: Secret("at-value"), refreshToken: Secret("rt-value"), obtainedAt: Date().timeIntervalSince1970)
        let text = "\(secret) \(tokens) \(String(reflecting: tokens))"
        #expect(!text.contains("hunter2") && !text.contains("at-value") && !text.contains("rt-value"))
    }
}
