import BrokerCrypto
import BrokerHTTP
import Foundation

// A protected resource for DPoP-bound access tokens (RFC 9449 §7), with its own nonces (§9).
extension MockProvider {
    /// `GET|POST /resource`: `Authorization: DPoP <access token>` plus a proof for this request
    /// whose `ath` is the token's hash and whose key is the token's `cnf.jkt` (and, with
    /// `dpopNonces`, the resource server's nonce). An unbound token may be used as `Bearer`; a
    /// bound one may not (§7.2). Refusals are 401 with a `WWW-Authenticate: DPoP` challenge.
    func resource(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "POST" else { return .plainText(status: 405, "use GET or POST") }
        guard let (scheme, token) = Self.credentials(request.headers["Authorization"]) else { return resourceChallenge(nil) }
        let record = state.withLock { state in state.accessTokens[token] }
        guard let record, !record.revoked, record.expiresAt > Date() else {
            return resourceChallenge("invalid_token", "unknown, revoked or expired access token")
        }
        switch (scheme, record.jkt) {
        case ("bearer", nil):
            return resourceAnswer(request, jkt: nil)
        case ("bearer", _):
            return resourceChallenge("invalid_token", "a DPoP-bound access token cannot be used as a bearer token")
        case ("dpop", let jkt?):
            switch verifyDPoPProof(request, accessToken: token, boundTo: jkt, resource: true) {
            case .success: return resourceAnswer(request, jkt: jkt)
            case .failure(let reason): return resourceChallenge(reason.error, "DPoP proof refused: \(reason.rawValue)")
            }
        default:
            return resourceChallenge("invalid_token", "this access token is not DPoP-bound; send it as Bearer")
        }
    }

    /// `(lowercased scheme, token)` of an Authorization header, for the Bearer and DPoP schemes.
    private static func credentials(_ header: String?) -> (String, String)? {
        guard let header, let space = header.firstIndex(of: " ") else { return nil }
        let scheme = header[..<space].lowercased()
        let token = header[header.index(after: space)...].trimmingCharacters(in: .whitespaces)
        guard scheme == "bearer" || scheme == "dpop", !token.isEmpty else { return nil }
        return (scheme, token)
    }

    private func resourceAnswer(_ request: HTTPRequest, jkt: String?) -> HTTPResponse {
        let subject = configuration.subject
        var body: [String: Any] = ["sub": subject, "method": request.method]
        if let jkt { body["jkt"] = jkt }
        return MockResponse.json(body, headers: dpopNonceHeader(resource: true))
    }

    /// 401 with `WWW-Authenticate: DPoP …` (RFC 9449 §7.1) and the resource server's nonce.
    private func resourceChallenge(_ error: String?, _ description: String? = nil) -> HTTPResponse {
        var parameters: [String] = []
        if let error { parameters.append("error=\"\(error)\"") }
        if let description { parameters.append("error_description=\"\(description)\"") }
        parameters.append("algs=\"\(Self.dpopAlgorithms.map(\.rawValue).joined(separator: " "))\"")
        let headers = [("WWW-Authenticate", "DPoP " + parameters.joined(separator: ", "))] + dpopNonceHeader(resource: true)
        return MockResponse.json(["error": error ?? "invalid_token"], status: 401, headers: headers)
    }
}

extension MockProvider {
    /// A JWT access token bound to `jkt` (RFC 9449 §6.1 `cnf.jkt`), signed like the ID tokens.
    func mintBoundAccessToken(jkt: String, scope: String) throws -> String {
        let (configuration, key) = try state.withLock { state in (state.configuration, try signingKey(&state)) }
        let now = Int(Date().timeIntervalSince1970)
        let claims: [String: Any] = [
            "iss": issuer, "sub": configuration.subject, "aud": url("resource"), "client_id": configuration.clientID,
            "scope": scope, "iat": now, "exp": now + configuration.accessTokenLifetime, "jti": Self.randomToken("at"),
            "cnf": ["jkt": jkt],
        ]
        return try key.sign(header: ["typ": "at+jwt"], claims: claims)
    }
}
