/// Manually configured endpoints, for providers without discovery.
public struct ManualEndpoints: Codable, Sendable, Equatable {
    public var authorization: String?
    public var token: String?
    public var revocation: String?
    public var userinfo: String?
    public var deviceAuthorization: String?
    public var endSession: String?
    public var jwksURI: String?
    /// RFC 9126 §5 `pushed_authorization_request_endpoint` (`--par-endpoint`).
    public var pushedAuthorizationRequest: String?

    public init(
        authorization: String? = nil, token: String? = nil, revocation: String? = nil, userinfo: String? = nil,
        deviceAuthorization: String? = nil, endSession: String? = nil, jwksURI: String? = nil,
        pushedAuthorizationRequest: String? = nil
    ) {
        self.authorization = authorization
        self.token = token
        self.revocation = revocation
        self.userinfo = userinfo
        self.deviceAuthorization = deviceAuthorization
        self.endSession = endSession
        self.jwksURI = jwksURI
        self.pushedAuthorizationRequest = pushedAuthorizationRequest
    }

    public var isEmpty: Bool { self == ManualEndpoints() }

    /// The endpoints that are set, as (JSON key, URL) sorted by key: derived from the encoding, so
    /// a new endpoint is validated without another list to update.
    public var configured: [(key: String, url: String)] {
        guard case .object(let fields)? = try? WireJSON.encodeValue(self) else { return [] }
        return fields.compactMap { key, value in
            guard case .string(let url) = value else { return nil }
            return (key, url)
        }.sorted { $0.key < $1.key }
    }

    enum CodingKeys: String, CodingKey {
        case authorization = "authorization_endpoint"
        case token = "token_endpoint"
        case revocation = "revocation_endpoint"
        case userinfo = "userinfo_endpoint"
        case deviceAuthorization = "device_authorization_endpoint"
        case endSession = "end_session_endpoint"
        case jwksURI = "jwks_uri"
        case pushedAuthorizationRequest = "pushed_authorization_request_endpoint"
    }
}
