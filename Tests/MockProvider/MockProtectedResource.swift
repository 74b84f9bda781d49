import BrokerHTTP
import Foundation

/// Protected-resource mode (`MockProviderConfiguration.protectedResource`), shaped by RFC 9728,
/// RFC 8707 and the MCP authorization spec (2025-11-25): a resource at `path` on the mock's origin
/// that answers 401 with a `WWW-Authenticate: Bearer` challenge, its Protected Resource Metadata
/// at the path-inserted or root well-known URL, the authorization server's metadata at the URLs the
/// spec lists (also for an issuer with a path), and `resource` checked on every grant. Client
/// registration (RFC 7591/7592, Client ID Metadata Documents) is in `MockClientRegistration.swift`.
/// Every member is optional in JSON, so a test sets only what it needs.
public struct MockProtectedResource: Codable, Sendable, Equatable {
    /// The resource's path on the mock's origin (not below the issuer's path).
    public var path = "/mcp"
    /// The 401 names the metadata document (`resource_metadata="…"`); false: the client must probe
    /// the well-known URLs.
    public var metadataHint = true
    /// Where the metadata document is served: "path" (path-inserted) or "root".
    public var metadataAt = "path"
    /// The challenge's `scope="…"`, if any.
    public var challengeScope: String?
    /// The document's `scopes_supported`, if any.
    public var scopesSupported: [String]?
    /// A lying document: its `resource` names this instead of the resource's URL (§3.3).
    public var claimedResource: String?
    /// Every grant (authorization request, code exchange, refresh) must carry `resource` equal to
    /// the resource's URL, else `invalid_target` (RFC 8707 §2). Stats record what came either way.
    public var checkResource = true
    /// Which authorization-server metadata documents exist: "rfc8414" (path-inserted
    /// oauth-authorization-server), "oidc-inserted", "oidc-appended".
    public var serverDocuments = ["rfc8414", "oidc-inserted", "oidc-appended"]
    /// The metadata lists no `code_challenge_methods_supported` containing S256.
    public var withoutS256 = false
    /// Plain OAuth (RFC 8414 only): no `jwks_uri`, `userinfo_endpoint`, ID token algorithms or
    /// `openid` scope in the metadata.
    public var plainOAuth = false
    /// Advertise `registration_endpoint` (RFC 7591).
    public var dynamicRegistration = true
    /// Advertise `client_id_metadata_document_supported`.
    public var clientIDMetadataDocuments = false
    /// The authorization server the document names, when not this mock's own issuer (a resource
    /// whose tokens another mock issues).
    public var authorizationServer: String?

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = MockProtectedResource()
        path = try container.decodeIfPresent(String.self, forKey: .path) ?? defaults.path
        metadataHint = try container.decodeIfPresent(Bool.self, forKey: .metadataHint) ?? defaults.metadataHint
        metadataAt = try container.decodeIfPresent(String.self, forKey: .metadataAt) ?? defaults.metadataAt
        challengeScope = try container.decodeIfPresent(String.self, forKey: .challengeScope)
        scopesSupported = try container.decodeIfPresent([String].self, forKey: .scopesSupported)
        claimedResource = try container.decodeIfPresent(String.self, forKey: .claimedResource)
        checkResource = try container.decodeIfPresent(Bool.self, forKey: .checkResource) ?? defaults.checkResource
        serverDocuments = try container.decodeIfPresent([String].self, forKey: .serverDocuments) ?? defaults.serverDocuments
        withoutS256 = try container.decodeIfPresent(Bool.self, forKey: .withoutS256) ?? false
        plainOAuth = try container.decodeIfPresent(Bool.self, forKey: .plainOAuth) ?? false
        dynamicRegistration =
            try container.decodeIfPresent(Bool.self, forKey: .dynamicRegistration) ?? defaults.dynamicRegistration
        clientIDMetadataDocuments = try container.decodeIfPresent(Bool.self, forKey: .clientIDMetadataDocuments) ?? false
        authorizationServer = try container.decodeIfPresent(String.self, forKey: .authorizationServer)
    }
}

/// What protected-resource mode saw, in `MockProviderStats.protectedResource`.
public struct MockProtectedResourceStats: Codable, Sendable, Equatable {
    /// `GRANT=RESOURCE` for every authorization request, code exchange and refresh ("-": none).
    public var resourceParameters: [String] = []
    /// Requests refused with `invalid_target`.
    public var invalidTargets = 0
    public var challenges = 0
    public var metadataRequests = 0
    /// Every request for an authorization-server document, served or not, by name ("rfc8414", …).
    public var serverMetadataRequests: [String] = []
    public var registrations = 0
    public var registrationReads = 0
    public var registrationDeletes = 0
    public var resourceCalls = 0
    public init() {}
}

extension MockProvider {
    /// The resource's URL: the mock's origin and `path`.
    func resourceURL(_ mode: MockProtectedResource) -> String { origin + mode.path }

    /// Answers the routes of protected-resource mode; nil for any other request (or mode off).
    func protectedResourceAnswer(_ request: HTTPRequest) -> HTTPResponse? {
        guard let mode = configuration.protectedResource else { return nil }
        let path = String(request.path)
        if path == mode.path { return resource(request, mode) }
        let inserted = "/.well-known/oauth-protected-resource" + mode.path
        let root = "/.well-known/oauth-protected-resource"
        if path == inserted || path == root {
            guard path == (mode.metadataAt == "root" ? root : inserted) else { return .plainText(status: 404, "not here") }
            return protectedResourceMetadata(mode)
        }
        if let document = serverDocumentName(path) {
            state.withLock { $0.stats.protectedResource.serverMetadataRequests.append(document) }
            guard mode.serverDocuments.contains(document) else { return .plainText(status: 404, "no \(document) document") }
            return serverMetadata(mode, document: document)
        }
        return registrationAnswer(request, mode)
    }

    /// 401 with the challenge unless the request carries an access token this mock issued. The
    /// header starts with another scheme's challenge whose quoted realm holds a comma, as RFC 9110
    /// §11.6.1 allows: a client must parse, not split.
    private func resource(_ request: HTTPRequest, _ mode: MockProtectedResource) -> HTTPResponse {
        let token = request.headers["Authorization"].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
        let valid = token.map { token in
            state.withLock { $0.accessTokens[token].map { !$0.revoked && $0.expiresAt > Date() } ?? false }
        }
        if valid == true {
            state.withLock { $0.stats.protectedResource.resourceCalls += 1 }
            return MockResponse.json(["ok": true])
        }
        state.withLock { $0.stats.protectedResource.challenges += 1 }
        var bearer = token == nil ? [String]() : [#"error="invalid_token""#]
        if mode.metadataHint {
            let at =
                mode.metadataAt == "root"
                ? "/.well-known/oauth-protected-resource"
                : "/.well-known/oauth-protected-resource" + mode.path
            bearer.append(#"resource_metadata="\#(origin + at)""#)
        }
        if let scope = mode.challengeScope { bearer.append(#"scope="\#(scope)""#) }
        let challenge = #"Basic realm="mock, resource", Bearer "# + bearer.joined(separator: ", ")
        return MockResponse.json(["error": "unauthorized"], status: 401, headers: [("WWW-Authenticate", challenge)])
    }

    private func protectedResourceMetadata(_ mode: MockProtectedResource) -> HTTPResponse {
        state.withLock { $0.stats.protectedResource.metadataRequests += 1 }
        var document: [String: Any] = [
            "resource": mode.claimedResource ?? resourceURL(mode), "authorization_servers": [mode.authorizationServer ?? issuer],
            "bearer_methods_supported": ["header"],
        ]
        if let scopes = mode.scopesSupported { document["scopes_supported"] = scopes }
        return MockResponse.json(document)
    }

    /// Which authorization-server document `path` asks for, by the MCP spec's URL shapes.
    private func serverDocumentName(_ path: String) -> String? {
        if path == "/.well-known/oauth-authorization-server" + issuerPath { return "rfc8414" }
        if path == "/.well-known/openid-configuration" + issuerPath { return "oidc-inserted" }
        if path == issuerPath + "/.well-known/openid-configuration" { return "oidc-appended" }
        return nil
    }

    private func serverMetadata(_ mode: MockProtectedResource, document name: String) -> HTTPResponse {
        let configuration = state.withLock { state in
            state.stats.discoveryRequests += 1
            return state.configuration
        }
        var document = metadataDocument(configuration)
        if offersPAR { document["pushed_authorization_request_endpoint"] = url("par") }
        if mode.withoutS256 { document["code_challenge_methods_supported"] = ["plain"] }
        if mode.plainOAuth {
            for member in [
                "jwks_uri", "userinfo_endpoint", "id_token_signing_alg_values_supported", "subject_types_supported",
                "end_session_endpoint",
            ] { document[member] = nil }
            document["scopes_supported"] = mode.scopesSupported ?? ["read", "write"]
        }
        if mode.dynamicRegistration { document["registration_endpoint"] = origin + "/register" }
        if mode.clientIDMetadataDocuments { document["client_id_metadata_document_supported"] = true }
        return MockResponse.json(document)
    }

    /// RFC 8707 on a grant (`authorize`, `authorization_code`, `refresh_token`): records what came
    /// and, when checked, refuses a missing or different `resource` with `invalid_target`.
    func resourceRefusal(_ fields: [String: String], grant: String) -> String? {
        guard let mode = configuration.protectedResource else { return nil }
        let expected = resourceURL(mode)
        return state.withLock { state in
            state.stats.protectedResource.resourceParameters.append("\(grant)=\(fields["resource"] ?? "-")")
            guard mode.checkResource, fields["resource"] != expected else { return nil }
            state.stats.protectedResource.invalidTargets += 1
            return fields["resource"] == nil ? "resource is required" : "unknown resource"
        }
    }
}
