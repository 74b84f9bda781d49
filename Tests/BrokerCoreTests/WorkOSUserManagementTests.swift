import BrokerCore
import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import BrokerStore
import Foundation
import TestSupport
import Testing

/// WorkOS User Management's `PublicClient` flow, shaped like the real API (docs: "Authenticate
/// with code", "Authenticate with refresh token", "Get logout URL"): authorize with
/// `provider=authkit`, JSON bodies at `POST /user_management/authenticate`, answers with a JWT
/// access token, a rotated refresh token and a `user` object but no token_type, expires_in or ID
/// token, and logout through `sessions/logout?session_id=<sid>`.
@Suite struct WorkOSUserManagementTests {
    static let authenticate = "https://api.workos.com/user_management/authenticate"
    static let metadata = ProviderMetadata(
        issuer: "https://api.workos.com/user_management/client_01HXYZ",
        authorizationEndpoint: "https://api.workos.com/user_management/authorize",
        tokenEndpoint: authenticate, jwksURI: "https://api.workos.com/sso/jwks/client_01HXYZ",
        endSessionEndpoint: "https://api.workos.com/user_management/sessions/logout")
    static let client = ClientConfiguration(
        clientID: "client_01HXYZ", scopes: [], extraParameters: [FormField("provider", "authkit")],
        tokenRequestFormat: .json)

    let time = TestTime()
    let transport = FakeTransport()
    var oidc: OIDCClient { OIDCClient(transport: transport, time: time.time) }

    /// A WorkOS-shaped access token: a JWT whose `exp` is the only statement of its lifetime.
    func accessToken(expiresIn seconds: Double, sid: String = "session_01HQ") throws -> String {
        let now = time.now.timeIntervalSince1970
        return try TestSigningKey(.p256, kid: "workos").sign(claims: [
            "iss": "https://api.workos.com", "sub": "user_01E4", "sid": sid, "org_id": "org_01",
            "iat": now, "exp": now + seconds,
        ])
    }

    func answer(accessToken: String, refreshToken: String, userID: String = "user_01E4") -> FakeTransport.Reply {
        .json([
            "user": ["object": "user", "id": userID, "email": "dev@example.com"], "organization_id": "org_01",
            "access_token": accessToken, "refresh_token": refreshToken, "authentication_method": "GoogleOAuth",
        ])
    }

    func jsonBody(_ request: HTTPClientRequest) throws -> [String: String] {
        try #require(JSONSerialization.jsonObject(with: Data(request.body)) as? [String: String])
    }

    func login() throws -> (AuthorizationRequest, PendingAuthorization) {
        let request = try oidc.authorizationRequest(
            metadata: Self.metadata, client: Self.client, redirectURI: try RedirectURI(port: 50123), randomBytes: countingRandom()
        )
        return (request, request.pendingLogin)
    }

    @Test func theAuthorizationRequestAsksForAuthKitWithPKCEAndNoScopeOrNonce() throws {
        let (request, pending) = try login()
        #expect(pending.nonce == nil)
        #expect(request.url.hasPrefix("https://api.workos.com/user_management/authorize?"))
        #expect(
            queryFields(request.url) == [
                FormField("response_type", "code"), FormField("client_id", "client_01HXYZ"),
                FormField("redirect_uri", "http://127.0.0.1:50123/callback"), FormField("state", pending.state),
                FormField("code_challenge", PKCE(codeVerifier: pending.codeVerifier).codeChallenge),
                FormField("code_challenge_method", "S256"), FormField("provider", "authkit"),
            ])
    }

    @Test func theCodeExchangeIsAJSONBodyAndTheAnswerNamesUserAndExpiry() async throws {
        let (_, pending) = try login()
        let jwt = try accessToken(expiresIn: 300)
        transport.on(Self.authenticate, answer(accessToken: jwt, refreshToken: "wos_rt_1"))
        let result = try await oidc.exchangeCode(
            Secret("01JCODE"), pendingLogin: pending, metadata: Self.metadata, client: Self.client)
        let request = try #require(transport.requests.last)
        #expect(request.method == "POST" && request.headers["Content-Type"] == "application/json")
        #expect(request.headers["Authorization"] == nil)
        #expect(
            try jsonBody(request) == [
                "client_id": "client_01HXYZ", "grant_type": "authorization_code", "code": "01JCODE",
                "code_verifier": pending.codeVerifier.revealString(),
            ])
        #expect(result.tokens.accessToken == Secret(jwt) && result.tokens.refreshToken == Secret("wos_rt_1"))
        #expect(result.tokens.tokenType == "Bearer" && result.tokens.idToken == nil)
        #expect(result.tokens.expiresAt == time.now.timeIntervalSince1970 + 300)
        #expect(result.subject == "user_01E4")
    }

    @Test func aConfidentialClientSendsItsSecretInTheJSONBodyNeverAsBasic() async throws {
        let (_, pending) = try login()
        var client = Self.client
        client.authentication = .clientSecretBasic(Secret("sk_test_1"))
        transport.on(Self.authenticate, answer(accessToken: try accessToken(expiresIn: 300), refreshToken: "r"))
        _ = try await oidc.exchangeCode(Secret("c"), pendingLogin: pending, metadata: Self.metadata, client: client)
        let request = try #require(transport.requests.last)
        let body = try jsonBody(request)
        #expect(request.headers["Authorization"] == nil && body["client_secret"] == "sk_test_1")
    }

    @Test func aRefreshRotatesTheRefreshTokenAndSendsNoScope() async throws {
        let first = TokenSet(accessToken: Secret(try accessToken(expiresIn: 1)), refreshToken: Secret("wos_rt_1"), obtainedAt: 0)
        let jwt = try accessToken(expiresIn: 600)
        transport.on(Self.authenticate, answer(accessToken: jwt, refreshToken: "wos_rt_2"))
        let refreshed = try await oidc.refresh(first, metadata: Self.metadata, client: Self.client)
        #expect(
            try jsonBody(try #require(transport.requests.last)) == [
                "client_id": "client_01HXYZ", "grant_type": "refresh_token", "refresh_token": "wos_rt_1",
            ])
        #expect(refreshed.refreshToken == Secret("wos_rt_2") && refreshed.accessToken == Secret(jwt))
        #expect(refreshed.expiresAt == time.now.timeIntervalSince1970 + 600)
    }

    /// The user id stands in for an ID token's `sub`: a refresh answered for another user is
    /// refused (terminal: signed out), the same user or an answer without one is accepted.
    @Test func aRefreshAnsweredForAnotherUserIsRefused() async throws {
        let first = TokenSet(accessToken: Secret(try accessToken(expiresIn: 1)), refreshToken: Secret("wos_rt_1"), obtainedAt: 0)
        transport.on(
            Self.authenticate,
            answer(accessToken: try accessToken(expiresIn: 600), refreshToken: "wos_rt_2", userID: "user_02OTHER"))
        let error = await #expect(throws: OIDCError.self) {
            try await oidc.refresh(first, metadata: Self.metadata, client: Self.client, previousSubject: "user_01E4")
        }
        #expect(error == .idToken(.subjectChanged) && error?.disposition == .terminal)
        transport.on(Self.authenticate, answer(accessToken: try accessToken(expiresIn: 600), refreshToken: "wos_rt_3"))
        let same = try await oidc.refresh(first, metadata: Self.metadata, client: Self.client, previousSubject: "user_01E4")
        #expect(same.refreshToken == Secret("wos_rt_3"))
    }

    @Test func invalidGrantInWorkOSsShapeIsTerminal() async throws {
        let tokens = TokenSet(accessToken: Secret("a"), refreshToken: Secret("wos_rt_old"), obtainedAt: 0)
        transport.on(
            Self.authenticate,
            .json(
                ["error": "invalid_grant", "error_description": "Session has already ended."], status: 400))
        let error = await #expect(throws: OIDCError.self) {
            try await oidc.refresh(tokens, metadata: Self.metadata, client: Self.client)
        }
        #expect(error?.isInvalidGrant == true && error?.disposition == .terminal)
    }

    @Test func workOSsCodeAndMessageErrorsReadAsOAuthErrors() async throws {
        let (_, pending) = try login()
        transport.on(
            Self.authenticate,
            .json(
                ["code": "mfa_enrollment", "message": "The user must enroll in MFA.", "pending_authentication_token": "p"],
                status: 403))
        await #expect(
            throws: OIDCError.oauthError(
                OAuthErrorResponse(error: "mfa_enrollment", errorDescription: "The user must enroll in MFA."), status: 403,
                retryAfter: nil)
        ) {
            try await oidc.exchangeCode(Secret("c"), pendingLogin: pending, metadata: Self.metadata, client: Self.client)
        }
    }

    @Test func onlyJSONAnswersMayOmitTokenType() throws {
        let response = HTTPResponse(status: 200, body: Array(#"{"access_token":"a"}"#.utf8))
        #expect(try TokenResponse.parse(response, now: time.now, format: .json).tokenType == "Bearer")
        let error = #expect(throws: OIDCError.unsupportedTokenType("")) { try TokenResponse.parse(response, now: time.now) }
        #expect(error?.disposition == .terminal)
        #expect(error?.description.contains("token request format to json") == true)
        let foreign = HTTPResponse(status: 200, body: Array(#"{"access_token":"a","token_type":"DPoP"}"#.utf8))
        #expect(throws: OIDCError.unsupportedTokenType("DPoP")) { try TokenResponse.parse(foreign, now: time.now, format: .json) }
    }

    @Test func aMalformedUserObjectNamesNobody() throws {
        for user in [#""user_1""#, #"{"id":""}"#, #"{"id":"a b"}"#, #"{"id":7}"#] {
            let body = #"{"access_token":"a","user":"# + user + "}"
            let parsed = try TokenResponse.parse(HTTPResponse(status: 200, body: Array(body.utf8)), now: time.now, format: .json)
            #expect(parsed.userID == nil, "\(user)")
        }
    }

    @Test func theLogoutURLNamesTheAccessTokensSession() throws {
        var client = Self.client
        client.postLogoutRedirectURI = "https://example.com/signed-out"
        let tokens = TokenSet(accessToken: Secret(try accessToken(expiresIn: 60, sid: "session_01HQAG")), obtainedAt: 0)
        let url = try oidc.logoutURL(metadata: Self.metadata, client: client, tokens: tokens)
        #expect(url.hasPrefix("https://api.workos.com/user_management/sessions/logout?"))
        #expect(
            queryFields(url) == [
                FormField("session_id", "session_01HQAG"), FormField("return_to", "https://example.com/signed-out"),
            ])
        #expect(throws: OIDCError.self) {
            try oidc.logoutURL(
                metadata: Self.metadata, client: client, tokens: TokenSet(accessToken: Secret("opaque"), obtainedAt: 0))
        }
    }
}
