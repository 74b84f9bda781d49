import BrokerCrypto
import BrokerHTTP
import Foundation
import TestSupport

// WorkOS User Management, as its API reference describes it: authorize with `provider=authkit`,
// `POST /user_management/authenticate` with a JSON body, `GET /user_management/sessions/logout`.
extension MockProvider {
    func userManagement(_ endpoint: String, _ request: HTTPRequest) -> HTTPResponse {
        guard configuration.userManagement else { return .plainText(status: 404, "no such endpoint") }
        switch endpoint {
        case "authorize":
            guard request.queryValue("provider") == "authkit" else {
                return .plainText(status: 400, "provider is required (authkit, or a connection)")
            }
            return authorize(request, sendsIss: false)
        case "token": return authenticate(request)
        default: return endUserSession(request)
        }
    }

    /// The authorization_code and refresh_token grants with JSON bodies only: a form body is
    /// refused, so a client sending RFC 6749 forms here fails its tests.
    private func authenticate(_ request: HTTPRequest) -> HTTPResponse {
        guard (request.headers["Content-Type"] ?? "").hasPrefix("application/json"),
            let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
        else {
            state.withLock { $0.stats.nonJSONAuthenticateRequests += 1 }
            return MockResponse.oauthError("invalid_request", description: "the body must be a JSON object")
        }
        let fields = object.compactMapValues { $0 as? String }
        let configuration = self.configuration
        guard fields["client_id"] == configuration.clientID,
            configuration.clientAuthentication == "none" || fields["client_secret"] == configuration.clientSecret
        else {
            state.withLock { $0.stats.clientAuthenticationFailures += 1 }
            return MockResponse.oauthError("invalid_client", status: 401, description: "client authentication failed")
        }
        switch fields["grant_type"] {
        case "authorization_code":
            switch redeemCode(fields, redirectURI: nil) {
            case .failure(let refusal): return refusal.response
            case .success(let grant): return userManagementTokens(family: nil, scope: grant.scope)
            }
        case "refresh_token":
            guard let family = redeemRefreshToken(fields["refresh_token"]) else {
                return MockResponse.oauthError("invalid_grant", description: "Session has already ended.")
            }
            return userManagementTokens(family: family, scope: "")
        default:
            return MockResponse.oauthError("unsupported_grant_type")
        }
    }

    /// The answer: a signed JWT access token (`sid`, `exp`), a new refresh token every time, the
    /// user and organization, the authentication method — no token_type, expires_in or ID token.
    private func userManagementTokens(family: Int?, scope: String) -> HTTPResponse {
        let now = Date().timeIntervalSince1970.rounded(.down)
        let minted: (String, String, MockProviderConfiguration)? = try? state.withLock { state in
            let configuration = state.configuration
            var family = family
            if family == nil {
                state.families.append(.init(scope: scope))
                family = state.families.count - 1
            }
            guard let family else { return nil }
            let sid = state.sessions.first { $0.value == family }?.key ?? Self.randomToken("session")
            state.sessions[sid] = family
            let accessToken = try signingKey(&state).sign(claims: [
                "iss": issuer, "sub": configuration.subject, "sid": sid, "org_id": "org_mock", "iat": now,
                "exp": now + Double(configuration.accessTokenLifetime), "jti": Self.randomToken("jti"),
            ])
            state.stats.tokensIssued += 1
            state.accessTokens[accessToken] = .init(
                family: family, expiresAt: Date().addingTimeInterval(Double(configuration.accessTokenLifetime)))
            let refreshToken = Self.randomToken("rt")
            state.refreshTokens[refreshToken] = .init(family: family, status: .active)
            return (accessToken, refreshToken, configuration)
        }
        guard let (accessToken, refreshToken, configuration) = minted else {
            return .plainText(status: 500, "cannot sign the access token")
        }
        return MockResponse.json([
            "user": ["object": "user", "id": configuration.subject, "email": configuration.email],
            "organization_id": "org_mock", "access_token": accessToken, "refresh_token": refreshToken,
            "authentication_method": "Password",
        ])
    }

    /// Ends the session named by `session_id`: its refresh tokens stop working, as WorkOS's do.
    private func endUserSession(_ request: HTTPRequest) -> HTTPResponse {
        let ended: Bool = state.withLock { state in
            guard let sid = request.queryValue("session_id"), let family = state.sessions.removeValue(forKey: sid) else {
                return false
            }
            state.revokeFamily(family)
            state.stats.endedSessions += 1
            return true
        }
        guard ended else { return .plainText(status: 400, "unknown session_id") }
        if let target = request.queryValue("return_to") { return MockResponse.redirect(to: target) }
        return .plainText(status: 200, "signed out")
    }
}
