import BrokerCrypto
import BrokerHTTP
import Foundation
import TestSupport

// Discovery, JWKS, userinfo, end_session and the admin routes.
extension MockProvider {
    func discovery(_ request: HTTPRequest) -> HTTPResponse {
        let configuration = state.withLock { state in
            state.stats.discoveryRequests += 1
            return state.configuration
        }
        if request.path == "/.well-known/openid-configuration" && !configuration.serveOpenIDConfiguration {
            return .plainText(status: 404, "no OpenID configuration here")
        }
        var document = metadataDocument(configuration)
        if offersPAR { document["pushed_authorization_request_endpoint"] = url("par") }
        if configuration.requirePAR && configuration.advertiseRequirePAR {
            document["require_pushed_authorization_requests"] = true
        }
        if request.path == "/.well-known/openid-configuration" {
            for member in configuration.onlyInRFC8414 { document[member] = nil }
        }
        // Entra publishes no RFC 7009 revocation endpoint.
        if configuration.entraTenant != nil { document["revocation_endpoint"] = nil }
        document.merge(dpopMetadata(configuration)) { $1 }
        return MockResponse.json(document)
    }

    func metadataDocument(_ configuration: MockProviderConfiguration) -> [String: Any] {
        let entra = configuration.entraTenant != nil
        return [
            "issuer": configuration.discoveryIssuer ?? (entra ? entraTemplateIssuer : issuer),
            "authorization_endpoint": url("authorize"),
            "token_endpoint": entra ? origin + "/common/oauth2/v2.0/token" : url("token"),
            "jwks_uri": url("jwks"),
            "userinfo_endpoint": url("userinfo"),
            "revocation_endpoint": url("revoke"),
            "end_session_endpoint": url("end_session"),
            "device_authorization_endpoint": url("device_authorization"),
            "response_types_supported": ["code"],
            "grant_types_supported": [
                "authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code",
            ],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
            "id_token_signing_alg_values_supported": ["RS256", "ES256"],
            // The MCP server on this origin (MockMCPServer) asks for mcp:tools and mcp:admin: this AS grants them.
            "scopes_supported": ["openid", "email", "profile", "offline_access", "mcp:tools", MockMCPServer.adminScope],
            "subject_types_supported": ["public"],
            "authorization_response_iss_parameter_supported": configuration.advertiseIssParameter && !entra,
        ]
    }

    func jwks() -> HTTPResponse {
        let keys = state.withLock { state in
            state.stats.jwksRequests += 1
            return state.keys
        }
        guard let body = try? TestSigningKey.jwksJSON(keys) else { return .plainText(status: 500, "cannot export keys") }
        return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body)
    }

    func userinfo(_ request: HTTPRequest) -> HTTPResponse {
        let header = request.headers["Authorization"] ?? ""
        let token = header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : ""
        let configuration: MockProviderConfiguration? = state.withLock { state in
            state.stats.userinfoRequests += 1
            guard let record = state.accessTokens[token], !record.revoked, record.expiresAt > Date() else { return nil }
            return state.configuration
        }
        guard let configuration else {
            return HTTPResponse(status: 401, headers: HTTPHeaders([("WWW-Authenticate", "Bearer error=\"invalid_token\"")]))
        }
        return MockResponse.json(["sub": configuration.subject, "email": configuration.email, "name": "Mock User"])
    }

    /// RP-initiated logout: records whether the hint is one of our ID tokens, then redirects
    /// to `post_logout_redirect_uri` when given (else a small page).
    func endSession(_ request: HTTPRequest) -> HTTPResponse {
        let hint = request.queryValue("id_token_hint")
        state.withLock { state in
            state.stats.endSessionRequests += 1
            state.stats.lastEndSessionHadValidIDTokenHint = hint.map { state.issuedIDTokens.contains($0) } ?? false
        }
        if let target = request.queryValue("post_logout_redirect_uri") {
            let state = request.queryValue("state").map { [FormField("state", $0)] } ?? []
            return MockResponse.redirect(to: state.isEmpty ? target : MockResponse.appending(state, to: target))
        }
        return .plainText(status: 200, "signed out")
    }

    /// `GET|POST /_mock/config` (POST merges a partial JSON object into the knobs),
    /// `GET /_mock/stats`, `POST /_mock/rotate-key`, `POST /_mock/revoke-all`.
    func admin(_ request: HTTPRequest, path: String) -> HTTPResponse {
        switch (request.method, path) {
        case ("GET", "/_mock/config"):
            return encoded(configuration)
        case ("POST", "/_mock/config"):
            do {
                let merged = try Self.merging(request.body, into: configuration)
                configure { $0 = merged }
                return encoded(merged)
            } catch {
                return .plainText(status: 400, "bad configuration: \(error)")
            }
        case ("GET", "/_mock/stats"):
            return encoded(stats)
        case ("POST", "/_mock/revoke-all"):
            // The user revoked the app's authorization at the provider (GitHub: Settings → Applications).
            state.withLock { state in
                for family in state.families.indices { state.revokeFamily(family) }
            }
            return encoded(stats)
        case ("POST", "/_mock/rotate-key"):
            guard
                let kid = try? rotateKey(
                    dropOld: request.queryValue("drop_old") == "true", sameKID: request.queryValue("same_kid") == "true")
            else {
                return .plainText(status: 500, "key generation failed")
            }
            return MockResponse.json(["kid": kid])
        default:
            return .plainText(status: 404, "no such admin route")
        }
    }

    private func encoded(_ value: some Encodable) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value) else { return .plainText(status: 500, "cannot encode") }
        return HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array(data))
    }

    /// The knobs with the members of the JSON object `patch` replaced (null clears an optional).
    public static func merging(_ patch: [UInt8], into configuration: MockProviderConfiguration) throws
        -> MockProviderConfiguration
    {
        let current = try JSONEncoder().encode(configuration)
        guard var object = try JSONSerialization.jsonObject(with: current) as? [String: Any],
            let changes = try JSONSerialization.jsonObject(with: Data(patch)) as? [String: Any]
        else { throw MockProviderError.invalid("the configuration must be a JSON object") }
        for (key, value) in changes { object[key] = value is NSNull ? nil : value }
        return try JSONDecoder().decode(
            MockProviderConfiguration.self, from: JSONSerialization.data(withJSONObject: object))
    }
}

/// Why the mock refused an admin request.
public enum MockProviderError: Error, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let why): why
        }
    }
}
