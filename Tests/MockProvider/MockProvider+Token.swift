import BrokerCrypto
import BrokerHTTP
import Foundation
import WireFormats

// The token endpoint's three grants and revocation.
extension MockProvider {
    func token(_ request: HTTPRequest) -> HTTPResponse {
        let fields = Self.form(request)
        if let refusal = authenticateClient(request, fields) { return refusal }
        let jkt: String?
        switch authorizationServerDPoP(request) {
        case .failure(let refusal): return refusal.response
        case .success(let thumbprint): jkt = thumbprint
        }
        var answer: HTTPResponse
        if let grant = fields["grant_type"], ["authorization_code", "refresh_token"].contains(grant),
            let refusal = resourceRefusal(fields, grant: grant)
        {
            return MockResponse.oauthError("invalid_target", description: refusal)
        }
        switch fields["grant_type"] {
        case "authorization_code": answer = exchangeCode(fields, jkt: jkt)
        case "refresh_token": answer = refresh(fields, jkt: jkt)
        case "urn:ietf:params:oauth:grant-type:device_code": answer = pollDevice(fields, jkt: jkt)
        default: answer = MockResponse.oauthError("unsupported_grant_type")
        }
        for (name, value) in dpopNonceHeader(resource: false) { answer.headers.add(name: name, value: value) }
        return answer
    }

    /// RFC 6749 §4.1.3 + RFC 7636 §4.6: single-use code, same redirect URI, S256 verifier.
    /// A code bound with `dpop_jkt` (RFC 9449 §10) is redeemed only with a proof of that key.
    private func exchangeCode(_ fields: [String: String], jkt: String?) -> HTTPResponse {
        switch redeemCode(fields, redirectURI: fields["redirect_uri"]) {
        case .failure(let refusal): return refusal.response
        case .success(let grant):
            if let bound = grant.dpopJKT, bound != jkt {
                return MockResponse.oauthError("invalid_grant", description: "the code is bound to another DPoP key")
            }
            return issueTokens(
                scope: grant.scope, family: nil, nonce: grant.nonce, jkt: jkt, refreshTokenAllowed: grant.refreshTokenAllowed)
        }
    }

    /// Takes the single-use code and checks its PKCE verifier (and, when given, that the redirect
    /// URI is the authorization request's: WorkOS's authenticate takes none).
    func redeemCode(_ fields: [String: String], redirectURI: String?) -> Result<MockProviderState.AuthorizationGrant, Refusal> {
        let grant: MockProviderState.AuthorizationGrant? = state.withLock { state in
            state.stats.codeExchanges += 1
            if let verifier = fields["code_verifier"] { state.receivedCodeVerifiers.append(verifier) }
            return fields["code"].flatMap { state.codes.removeValue(forKey: $0) }
        }
        guard let grant, redirectURI == nil || grant.redirectURI == redirectURI else {
            return .failure(Refusal(MockResponse.oauthError("invalid_grant", description: "unknown, used or mismatched code")))
        }
        let challenge = Base64URL.encode(SHA256.hash(Array((fields["code_verifier"] ?? "").utf8)))
        guard challenge == grant.codeChallenge else {
            return .failure(Refusal(MockResponse.oauthError("invalid_grant", description: "PKCE verification failed")))
        }
        return .success(grant)
    }

    /// An error answer, as the failure of a `Result`.
    struct Refusal: Error {
        let response: HTTPResponse
        init(_ response: HTTPResponse) { self.response = response }
    }

    /// RFC 6749 §6 with rotation and reuse detection: a retired refresh token used again
    /// revokes its family, as real providers do.
    /// A refresh token issued with a DPoP proof is usable only with a proof of the same key (§5).
    private func refresh(_ fields: [String: String], jkt: String?) -> HTTPResponse {
        let bound = state.withLock { state in
            fields["refresh_token"].flatMap { state.refreshTokens[$0] }.flatMap { state.families[$0.family].jkt }
        }
        if let bound, bound != jkt {
            return MockResponse.oauthError("invalid_grant", description: "the refresh token is bound to another DPoP key")
        }
        if let refusal = state.withLock({ $0.configuration.narrowedRefusal }),
            fields["resource"] != nil || fields["audience"] != nil
        {
            return MockResponse.oauthError(refusal, description: "the user has not consented to this resource")
        }
        // A refused scope or resource leaves the refresh token as it was: checked before it is redeemed.
        let peeked = state.withLock { state in fields["refresh_token"].flatMap { state.refreshTokens[$0]?.family } }
        let scope: String?
        switch peeked.map({ narrowedScope(fields, family: $0) }) ?? .success(nil) {
        case .failure(let refusal): return refusal.response
        case .success(let granted): scope = granted
        }
        let resource: String?
        switch requestedResource(fields) {
        case .failure(let refusal): return refusal.response
        case .success(let named): resource = named
        }
        guard let family = redeemRefreshToken(fields["refresh_token"]), let scope else {
            return MockResponse.oauthError("invalid_grant", description: "refresh token is not valid")
        }
        if state.withLock({ $0.configuration.narrowsGrantOnRefresh }), fields["scope"] != nil {
            state.withLock { $0.families[family].scope = scope }
        }
        return issueTokens(scope: scope, family: family, nonce: nil, reuse: fields["refresh_token"], jkt: jkt, resource: resource)
    }

    /// The family of a usable refresh token, retiring it when rotating; nil for an unknown,
    /// revoked or reused one (reuse revokes the whole family when detection is on).
    func redeemRefreshToken(_ token: String?) -> Int? {
        state.withLock { state in
            state.stats.refreshes += 1
            guard let token, let record = state.refreshTokens[token] else { return nil }
            switch record.status {
            case .revoked: return nil
            case .rotatedOut:
                if state.configuration.detectRefreshTokenReuse {
                    state.revokeFamily(record.family)
                    state.stats.familyRevocations += 1
                    return nil
                }
            case .active: break
            }
            guard !state.families[record.family].revoked else { return nil }
            if state.configuration.rotates { state.refreshTokens[token]?.status = .rotatedOut }
            return record.family
        }
    }

    /// RFC 8628 §3.4–3.5, following the configured script.
    private func pollDevice(_ fields: [String: String], jkt: String?) -> HTTPResponse {
        enum Answer {
            case error(String)
            case tokens(String)
        }
        let answer: Answer = state.withLock { state in
            state.stats.devicePolls += 1
            guard let code = fields["device_code"], var grant = state.deviceCodes[code], !grant.used else {
                return .error("invalid_grant")
            }
            guard grant.expiresAt > Date() else { return .error("expired_token") }
            grant.polls += 1
            defer { state.deviceCodes[code] = grant }
            let configuration = state.configuration
            if grant.polls <= configuration.deviceSlowDownPolls { return .error("slow_down") }
            if grant.polls <= configuration.deviceSlowDownPolls + configuration.devicePendingPolls {
                return .error("authorization_pending")
            }
            if configuration.deviceDenies { return .error("access_denied") }
            grant.used = true
            return .tokens(grant.scope)
        }
        switch answer {
        case .error(let code): return MockResponse.oauthError(code)
        case .tokens(let scope): return issueTokens(scope: scope, family: nil, nonce: nil, jkt: jkt)
        }
    }

    /// Mints an access token, a refresh token (new family unless refreshing one; a new token
    /// only when rotating) and an ID token when `openid` was granted. With a DPoP key (`jkt`) the
    /// access token is a JWT carrying `cnf.jkt`, `token_type` is DPoP and a new family is bound to it.
    private func issueTokens(
        scope: String, family: Int?, nonce: String?, reuse: String? = nil, jkt: String? = nil,
        refreshTokenAllowed: Bool = true, resource: String? = nil
    ) -> HTTPResponse {
        let google = configuration.google
        let plain = google ? Self.googleToken("at") : Self.randomToken("at")
        let unbound: String? = if let resource { try? mintResourceAccessToken(resource: resource, scope: scope) } else { plain }
        guard let accessToken = jkt.map({ try? mintBoundAccessToken(jkt: $0, scope: scope) }) ?? unbound else {
            return .plainText(status: 500, "cannot sign the access token")
        }
        let (configuration, refreshToken) = state.withLock { state -> (MockProviderConfiguration, String?) in
            let configuration = state.configuration
            state.stats.tokensIssued += 1
            var family = family
            if family == nil && configuration.issueRefreshTokens && refreshTokenAllowed {
                state.families.append(.init(scope: scope, jkt: jkt))
                family = state.families.count - 1
            }
            state.accessTokens[accessToken] = .init(
                family: family, expiresAt: Date().addingTimeInterval(Double(configuration.lifetime(resource: resource))), jkt: jkt
            )
            guard let family else { return (configuration, nil) }
            if let reuse, !configuration.rotates { return (configuration, reuse) }
            let refreshToken = google ? Self.googleToken("rt") : Self.randomToken("rt")
            state.refreshTokens[refreshToken] = .init(family: family, status: .active)
            return (configuration, refreshToken)
        }
        var body: [String: Any] = ["access_token": accessToken, "token_type": jkt == nil ? "Bearer" : "DPoP", "scope": scope]
        if configuration.includeExpiresIn { body["expires_in"] = configuration.lifetime(resource: resource) }
        // Without rotation the refresh token is not restated (RFC 6749 §6 allows either).
        if let refreshToken, refreshToken != reuse { body["refresh_token"] = refreshToken }
        let refreshing = reuse != nil  // only a refresh redeems a refresh token
        if scope.split(separator: " ").contains("openid"), !refreshing || configuration.idTokenOnRefresh {
            guard let idToken = try? mintIDToken(nonce: nonce, accessToken: accessToken) else {
                return .plainText(status: 500, "cannot sign the ID token")
            }
            body["id_token"] = idToken
        }
        return MockResponse.json(body)
    }

    /// RFC 7009: always 200; a refresh token revokes its family, an access token itself.
    func revoke(_ request: HTTPRequest) -> HTTPResponse {
        let fields = Self.form(request)
        if let refusal = authenticateClient(request, fields) { return refusal }
        guard let token = fields["token"] else { return MockResponse.oauthError("invalid_request") }
        if let refusal = revocationDPoPRefusal(request, token: token) { return refusal }
        state.withLock { state in
            state.stats.revocations += 1
            state.stats.revokedHints.append(fields["token_type_hint"] ?? "")
            if let record = state.refreshTokens[token] { state.revokeFamily(record.family) }
            state.accessTokens[token]?.revoked = true
        }
        return HTTPResponse(status: 200)
    }
}
