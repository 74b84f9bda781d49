/// The provider metadata the engine uses: OpenID Connect Discovery 1.0 §3 and RFC 8414 §2
/// share these field names. Built from a discovery document or given manually for providers
/// without discovery (then every endpoint the account uses must be filled in).
public struct ProviderMetadata: Sendable, Equatable, Codable {
    public var issuer: String
    public var authorizationEndpoint: String?
    public var tokenEndpoint: String?
    public var jwksURI: String?
    public var userinfoEndpoint: String?
    public var revocationEndpoint: String?
    public var endSessionEndpoint: String?
    public var deviceAuthorizationEndpoint: String?
    public var scopesSupported: [String]?
    public var codeChallengeMethodsSupported: [String]?
    public var tokenEndpointAuthMethodsSupported: [String]?
    public var idTokenSigningAlgValuesSupported: [String]?
    /// RFC 9207: when true, every authorization response must carry `iss`.
    public var authorizationResponseIssParameterSupported: Bool?
    /// RFC 9126 §5: where authorization parameters are pushed before the browser is opened.
    public var pushedAuthorizationRequestEndpoint: String?
    /// RFC 9126 §5: when true, the provider takes authorization requests only by reference (PAR).
    public var requirePushedAuthorizationRequests: Bool?
    /// RFC 9449 §5.1: the JWS algorithms the provider accepts in DPoP proofs. Advertising them
    /// does not make DPoP required; `authctl account add` suggests `--dpop` when ES256 is listed.
    public var dpopSigningAlgValuesSupported: [String]?

    public init(
        issuer: String, authorizationEndpoint: String? = nil, tokenEndpoint: String? = nil,
        jwksURI: String? = nil, userinfoEndpoint: String? = nil, revocationEndpoint: String? = nil,
        endSessionEndpoint: String? = nil, deviceAuthorizationEndpoint: String? = nil,
        scopesSupported: [String]? = nil, codeChallengeMethodsSupported: [String]? = nil,
        tokenEndpointAuthMethodsSupported: [String]? = nil, idTokenSigningAlgValuesSupported: [String]? = nil,
        authorizationResponseIssParameterSupported: Bool? = nil, pushedAuthorizationRequestEndpoint: String? = nil,
        requirePushedAuthorizationRequests: Bool? = nil, dpopSigningAlgValuesSupported: [String]? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.userinfoEndpoint = userinfoEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.scopesSupported = scopesSupported
        self.codeChallengeMethodsSupported = codeChallengeMethodsSupported
        self.tokenEndpointAuthMethodsSupported = tokenEndpointAuthMethodsSupported
        self.idTokenSigningAlgValuesSupported = idTokenSigningAlgValuesSupported
        self.authorizationResponseIssParameterSupported = authorizationResponseIssParameterSupported
        self.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint
        self.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests
        self.dpopSigningAlgValuesSupported = dpopSigningAlgValuesSupported
    }

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case userinfoEndpoint = "userinfo_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case scopesSupported = "scopes_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case pushedAuthorizationRequestEndpoint = "pushed_authorization_request_endpoint"
        case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
    }

    /// The URL of `endpoint`, or nil when the provider has none.
    public func url(of endpoint: ProviderEndpoint) -> String? {
        switch endpoint {
        case .authorization: authorizationEndpoint
        case .token: tokenEndpoint
        case .jwks: jwksURI
        case .userinfo: userinfoEndpoint
        case .revocation: revocationEndpoint
        case .endSession: endSessionEndpoint
        case .deviceAuthorization: deviceAuthorizationEndpoint
        case .pushedAuthorizationRequest: pushedAuthorizationRequestEndpoint
        }
    }

    /// The checked URL of `endpoint`; throws `missingEndpoint` when absent.
    func endpoint(_ endpoint: ProviderEndpoint) throws(OIDCError) -> EndpointURL {
        guard let text = url(of: endpoint) else { throw .missingEndpoint(endpoint) }
        return try EndpointURL.secure(text, what: endpoint.metadataKey)
    }

    /// The metadata a refresh uses: for a multi-tenant Entra account, the token endpoint of
    /// `tenantID`, the tenant the login's ID token names (`EntraIssuer.tenantTokenEndpoint`).
    func forRefreshing(tenantID: String?) -> ProviderMetadata {
        guard let tenantID, let endpoint = tokenEndpoint,
            let tenantEndpoint = EntraIssuer.tenantTokenEndpoint(endpoint, configured: issuer, tenantID: tenantID)
        else { return self }
        var metadata = self
        metadata.tokenEndpoint = tenantEndpoint
        return metadata
    }

    /// This metadata with every absent endpoint taken from `other` (same issuer, checked by the caller).
    func filling(from other: ProviderMetadata) -> ProviderMetadata {
        var merged = self
        merged.authorizationEndpoint = authorizationEndpoint ?? other.authorizationEndpoint
        merged.tokenEndpoint = tokenEndpoint ?? other.tokenEndpoint
        merged.jwksURI = jwksURI ?? other.jwksURI
        merged.userinfoEndpoint = userinfoEndpoint ?? other.userinfoEndpoint
        merged.revocationEndpoint = revocationEndpoint ?? other.revocationEndpoint
        merged.endSessionEndpoint = endSessionEndpoint ?? other.endSessionEndpoint
        merged.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint ?? other.deviceAuthorizationEndpoint
        merged.codeChallengeMethodsSupported = codeChallengeMethodsSupported ?? other.codeChallengeMethodsSupported
        merged.authorizationResponseIssParameterSupported =
            authorizationResponseIssParameterSupported ?? other.authorizationResponseIssParameterSupported
        merged.pushedAuthorizationRequestEndpoint = pushedAuthorizationRequestEndpoint ?? other.pushedAuthorizationRequestEndpoint
        merged.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests ?? other.requirePushedAuthorizationRequests
        merged.dpopSigningAlgValuesSupported = dpopSigningAlgValuesSupported ?? other.dpopSigningAlgValuesSupported
        return merged
    }

    /// Checks what a security reviewer would: the issuer is exactly the configured one (or, for a
    /// multi-tenant Entra issuer only, exactly its `{tenantid}` template: `EntraIssuer`), and
    /// every endpoint present is an https URL (http only for loopback) without fragment or user-info.
    public func validate(expectedIssuer: String) throws(OIDCError) {
        guard EntraIssuer.acceptsDocument(issuer: issuer, configured: expectedIssuer) else {
            throw .issuerMismatch(expected: expectedIssuer, found: issuer)
        }
        try Discovery.checkIssuer(issuer)
        for endpoint in ProviderEndpoint.allCases {
            if let text = url(of: endpoint) { _ = try EndpointURL.secure(text, what: endpoint.metadataKey) }
        }
    }

    /// True when the provider promised the RFC 9207 `iss` parameter in authorization responses.
    public var requiresIssuerInAuthorizationResponse: Bool {
        authorizationResponseIssParameterSupported == true
    }

    /// True when the provider takes authorization requests only pushed (RFC 9126 §5).
    public var requiresPushedAuthorizationRequests: Bool {
        requirePushedAuthorizationRequests == true
    }
}

/// The endpoints the engine may call.
public enum ProviderEndpoint: String, Sendable, CaseIterable, Codable {
    case authorization, token, jwks, userinfo, revocation, endSession, deviceAuthorization, pushedAuthorizationRequest

    /// The metadata field that carries this endpoint, for messages.
    public var metadataKey: String {
        switch self {
        case .authorization: "authorization_endpoint"
        case .token: "token_endpoint"
        case .jwks: "jwks_uri"
        case .userinfo: "userinfo_endpoint"
        case .revocation: "revocation_endpoint"
        case .endSession: "end_session_endpoint"
        case .deviceAuthorization: "device_authorization_endpoint"
        case .pushedAuthorizationRequest: "pushed_authorization_request_endpoint"
        }
    }
}
