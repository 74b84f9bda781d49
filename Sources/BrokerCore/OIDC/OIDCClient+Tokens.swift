import BrokerCrypto
import BrokerHTTP
import BrokerStore
import FoundationEssentials

extension OIDCClient {
    /// Exchanges the authorization code (RFC 6749 §4.1.3 + RFC 7636 §4.5) and validates the
    /// ID token against the pending login's nonce. An OpenID Connect login (one with a nonce)
    /// must yield an ID token; without one the answer's user id (WorkOS) names the user.
    public func exchangeCode(
        _ code: Secret, pendingLogin: PendingAuthorization, metadata: ProviderMetadata, client: ClientConfiguration
    )
        async throws(OIDCError) -> LoginResult
    {
        // The pending login was made for one provider; never send its verifier to another.
        guard pendingLogin.issuer == metadata.issuer else {
            throw .issuerMismatch(expected: pendingLogin.issuer, found: metadata.issuer)
        }
        // The code is bound to the login's key (`dpop_jkt`): the exchange is proved with it.
        var client = client
        client.dpopKey = pendingLogin.dpopKey
        let grant = TokenEndpointGrant.authorizationCode(
            code: code, codeVerifier: pendingLogin.codeVerifier, redirectURI: pendingLogin.redirectURI.description,
            resources: client.resources)
        let response = try await tokenRequest(grant, metadata: metadata, client: client)
        guard response.idToken != nil || pendingLogin.nonce == nil else {
            throw .idToken(.malformed("the token response has no id_token although the openid scope was requested"))
        }
        _ = try await validateIDToken(
            response, metadata: metadata, client: client, expectation: .login(nonce: pendingLogin.nonce))
        let scope = pendingLogin.scopes.isEmpty ? nil : pendingLogin.scopes.joined(separator: " ")
        var tokens = TokenSet(response, requestedScope: scope, receivedAt: time.now())
        tokens.dpopKey = pendingLogin.dpopKey
        return LoginResult(tokens: tokens, answeredUserID: response.userID)
    }

    /// Refreshes (RFC 6749 §6) with the configured scope restated, so the grant keeps its scope.
    /// Rotation: the answer's refresh token replaces the old one; the caller must store the whole
    /// returned set in one transaction before using it. A refreshed ID token must name the same
    /// subject (and Entra tenant); without ID tokens (WorkOS User Management), an answer's user id must name
    /// `previousSubject`, the user the login named. Classify failures with `OIDCError.disposition`.
    public func refresh(
        _ tokens: TokenSet, metadata: ProviderMetadata, client: ClientConfiguration, previousSubject: String? = nil
    ) async throws(OIDCError) -> TokenSet {
        try await refreshKeepingIdentity(tokens, metadata: metadata, client: client, previousSubject: previousSubject).tokens
    }

    /// `refresh`, with the identity of the answer's new ID token as it was validated (nil when the
    /// answer has none), so the broker keeps it once committed without parsing the token again.
    func refreshKeepingIdentity(
        _ tokens: TokenSet, metadata: ProviderMetadata, client: ClientConfiguration, previousSubject: String?
    ) async throws(OIDCError) -> RefreshedTokens {
        let scope = client.scopes.isEmpty ? nil : client.scopeParameter
        let identity = try tokens.previousIDTokenIdentity()
        let response = try await refreshRequest(tokens, identity: identity, metadata: metadata, client: client) {
            .refreshToken($0, scope: scope, resources: client.resources)
        }
        let claims = try await checkRefreshAnswer(
            response, previousIdentity: identity, metadata: metadata, client: client, previousSubject: previousSubject)
        return RefreshedTokens(
            tokens: TokenSet(response, requestedScope: nil, receivedAt: time.now()).carryingOver(from: tokens),
            newIDTokenIdentity: claims.map { IDTokenIdentity(subject: $0.subject, tenantID: $0.tenantID) })
    }

    /// Sends the refresh grant `grant` makes of the account's refresh token. `identity` is
    /// `tokens.previousIDTokenIdentity()`, read once by the caller: reading it may parse the ID
    /// token, and a refresh needs it three times (docs/BENCHMARKS-archive.md,
    /// "Forced refresh: wake-ups and parsing").
    func refreshRequest(
        _ tokens: TokenSet, identity: IDTokenIdentity?, metadata: ProviderMetadata, client: ClientConfiguration,
        grant: (Secret) -> TokenEndpointGrant
    ) async throws(OIDCError) -> TokenResponse {
        guard let refreshToken = tokens.refreshToken else { throw .noRefreshToken }
        // A DPoP-bound refresh token is usable only with the key it is bound to (RFC 9449 §5).
        var client = client
        client.dpopKey = tokens.dpopKey
        // An Entra login from `/common` refreshes at its own tenant's endpoint.
        let endpoints = metadata.forRefreshing(tenantID: identity?.tenantID)
        return try await tokenRequest(grant(refreshToken), metadata: endpoints, client: client)
    }

    /// A refresh answer must be for the same user: its ID token (or user id) is checked against the
    /// old set's, whose identity is `previousIdentity` (nil: the old set has no ID token). Returns
    /// the new ID token's claims (nil when the answer has none).
    @discardableResult
    func checkRefreshAnswer(
        _ response: TokenResponse, previousIdentity: IDTokenIdentity?, metadata: ProviderMetadata,
        client: ClientConfiguration, previousSubject: String?
    ) async throws(OIDCError) -> IDTokenClaims? {
        // OpenID Connect Core §12.2's rule for ID tokens, applied to the user id that stands in for
        // one: tokens for another user are never stored under this account.
        if previousIdentity == nil, let previousSubject, let answered = response.userID, answered != previousSubject {
            throw .idToken(.subjectChanged)
        }
        let expectation: IDTokenExpectation =
            previousIdentity.map { .refresh(previousSubject: $0.subject, previousTenant: $0.tenantID) } ?? .login(nonce: nil)
        return try await validateIDToken(response, metadata: metadata, client: client, expectation: expectation)
    }

    /// POSTs a grant to the token endpoint in the client's format and parses the answer.
    func tokenRequest(_ grant: TokenEndpointGrant, metadata: ProviderMetadata, client: ClientConfiguration)
        async throws(OIDCError) -> TokenResponse
    {
        let endpoint = try metadata.endpoint(.token)
        let response = try await send(grant.request(to: endpoint, client: client), dpop: client.dpopKey)
        return try TokenResponse.parse(response, now: time.now(), format: client.tokenRequestFormat, dpop: client.dpopKey != nil)
    }

    /// Validates the answer's ID token, if any, against the provider's JWKS. Only validated ID
    /// tokens enter a `TokenSet`, whose `idTokenClaims` then reads these claims back.
    func validateIDToken(
        _ response: TokenResponse, metadata: ProviderMetadata, client: ClientConfiguration, expectation: IDTokenExpectation
    ) async throws(OIDCError) -> IDTokenClaims? {
        guard let idToken = response.idToken else { return nil }
        let validator = IDTokenValidator(
            issuer: metadata.issuer, clientID: client.clientID, allowedTenants: Set(client.allowedTenants))
        return try await validator.validate(
            idToken, keys: try keySource(for: metadata), expectation: expectation, accessToken: response.accessToken,
            now: time.now())
    }

    /// Revokes the refresh token, then the access token (RFC 7009 §2.1, with token_type_hint),
    /// so a leaked access token cannot be used to mint new ones. Each token's outcome is
    /// reported; a failure of the first does not stop the second. DPoP-bound tokens are revoked
    /// with a proof of their key (no `ath`: like a token request, the token travels in the body),
    /// which providers such as Okta require; nonce challenges are retried once (`send(_:dpop:)`).
    public func revoke(_ tokens: TokenSet, metadata: ProviderMetadata, client: ClientConfiguration)
        async throws(OIDCError) -> [RevocationResult]
    {
        let endpoint = try metadata.endpoint(.revocation)
        var targets: [(String, Secret)] = []
        if let refreshToken = tokens.refreshToken { targets.append(("refresh_token", refreshToken)) }
        targets.append(("access_token", tokens.accessToken))
        var results: [RevocationResult] = []
        for (hint, token) in targets {
            let request = OIDCHTTP.formPost(
                endpoint, fields: [("token", token.revealString()), ("token_type_hint", hint)], client: client)
            do throws(OIDCError) {
                let response = try await send(request, dpop: tokens.dpopKey)
                // RFC 7009 §2.2: 200 also for tokens that were already invalid.
                guard response.status == 200 || Self.answersAlreadyInvalid(response) else {
                    throw OIDCHTTP.failure(response, endpoint: "revocation_endpoint", now: time.now())
                }
                results.append(RevocationResult(tokenTypeHint: hint, error: nil))
            } catch {
                results.append(RevocationResult(tokenTypeHint: hint, error: error))
            }
        }
        return results
    }

    /// Google answers 400 `invalid_token` ("Token expired or revoked") where RFC 7009 §2.2 says
    /// 200, e.g. for the access token that revoking its refresh token already killed. Either way
    /// the token no longer works, which is what revocation is for.
    static func answersAlreadyInvalid(_ response: HTTPResponse) -> Bool {
        guard response.status == 400, let object = try? ProviderJSON.object(from: response.body) else { return false }
        return object["error"]?.stringValue == "invalid_token"
    }
}

/// The outcome of revoking one token.
public struct RevocationResult: Sendable, Equatable {
    /// "refresh_token" or "access_token".
    public var tokenTypeHint: String
    /// nil when the provider confirmed the revocation.
    public var error: OIDCError?
}

/// A refresh's new tokens and, when the answer carried an ID token, the identity its validation read.
struct RefreshedTokens: Sendable {
    var tokens: TokenSet
    var newIDTokenIdentity: IDTokenIdentity?
}
