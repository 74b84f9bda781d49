import BrokerHTTP
import Foundation

// Google mode (`MockProviderConfiguration.google`): the standard endpoints, answered the way
// Google's "OAuth 2.0 for Mobile & Desktop Apps" and "OpenID Connect" pages say they answer.
extension MockProvider {
    /// Google's answer at `endpoint`, or nil where Google answers like the standard mock.
    func google(_ endpoint: String, _ request: HTTPRequest) -> HTTPResponse? {
        switch endpoint {
        case "discovery": googleDiscovery(discovery(request))
        case "authorize": googleAuthorize(request)
        case "revocation": googleRevoke(request)
        // Google publishes no end_session_endpoint.
        case "end_session": .plainText(status: 404, "no such endpoint")
        default: nil
        }
    }

    /// Google's document: no end-session endpoint, no RFC 9207 flag, no `offline_access` scope
    /// (offline access is `access_type=offline`), a client secret in the body or Basic.
    private func googleDiscovery(_ standard: HTTPResponse) -> HTTPResponse {
        guard var document = (try? JSONSerialization.jsonObject(with: Data(standard.body))) as? [String: Any] else {
            return standard
        }
        document["end_session_endpoint"] = nil
        document["authorization_response_iss_parameter_supported"] = nil
        document["scopes_supported"] = ["openid", "email", "profile"]
        document["token_endpoint_auth_methods_supported"] = ["client_secret_post", "client_secret_basic"]
        document["code_challenge_methods_supported"] = ["plain", "S256"]
        document["id_token_signing_alg_values_supported"] = ["RS256"]
        return MockResponse.json(document)
    }

    /// Google refuses the `offline_access` scope ("Error 400: invalid_scope") and grants a refresh
    /// token only for `access_type=offline`, and only when a consent screen was shown: the first
    /// time, or again with `prompt=consent`.
    private func googleAuthorize(_ request: HTTPRequest) -> HTTPResponse {
        let fields = Self.query(request)
        if (fields["scope"] ?? "").split(separator: " ").contains("offline_access") {
            return .plainText(
                status: 400, "Error 400: invalid_scope. Some requested scopes were invalid. {invalid=[offline_access]}")
        }
        let answer = authorize(request)
        guard let location = answer.headers["Location"],
            let code = URLComponents(string: location)?
                .queryItems?.first(where: { $0.name == "code" })?.value
        else { return answer }
        let prompts = (fields["prompt"] ?? "").split(separator: " ")
        state.withLock { state in
            let consentShown = !state.googleConsentGiven || prompts.contains("consent")
            state.googleConsentGiven = true
            state.codes[code]?.refreshTokenAllowed = consentShown && fields["access_type"] == "offline"
        }
        return answer
    }

    /// `token=` in the query or the form body, no client authentication; a refresh token or an
    /// access token revokes the whole grant; an unknown, expired or already revoked token gets 400
    /// `invalid_token` (not RFC 7009's 200).
    private func googleRevoke(_ request: HTTPRequest) -> HTTPResponse {
        let query = Self.query(request)
        let fields = Self.form(request)
        guard let token = fields["token"] ?? query["token"] else { return MockResponse.oauthError("invalid_request") }
        let revoked: Bool = state.withLock { state in
            state.stats.revocations += 1
            state.stats.revokedHints.append(fields["token_type_hint"] ?? "")
            let family =
                state.refreshTokens[token].flatMap { $0.status == .revoked ? nil : $0.family }
                ?? state.accessTokens[token].flatMap { $0.revoked || $0.expiresAt < Date() ? nil : ($0.family ?? -1) }
            guard let family else { return false }
            if family >= 0 { state.revokeFamily(family) }
            state.accessTokens[token]?.revoked = true
            return true
        }
        guard revoked else { return MockResponse.oauthError("invalid_token", description: "Token expired or revoked") }
        return HTTPResponse(status: 200)
    }

    /// Google's opaque token shapes: `ya29.…` access tokens, `1//…` refresh tokens.
    static func googleToken(_ kind: String) -> String {
        (kind == "at" ? "ya29." : "1//") + String(randomToken("g").dropFirst(2))
    }
}
