import WireFormats

/// Manually configured endpoints, for providers without discovery.
public struct ManualEndpoints: Codable, Sendable, Equatable, CustomReflectable {
    /// The URLs, behind one reference: an account without manual endpoints holds nil, and one
    /// with them a pointer, where eight optional strings were 128 bytes of every account's
    /// configuration (docs/BENCHMARKS-archive.md, "The ID token out of memory").
    private struct URLs: Codable, Sendable, Equatable {
        var authorization: String?
        var token: String?
        var revocation: String?
        var userinfo: String?
        var deviceAuthorization: String?
        var endSession: String?
        var jwksURI: String?
        var pushedAuthorizationRequest: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
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

    @OutOfLine private var urls: URLs

    public var authorization: String? {
        get { urls.authorization }
        set { urls.authorization = newValue }
    }
    public var token: String? {
        get { urls.token }
        set { urls.token = newValue }
    }
    public var revocation: String? {
        get { urls.revocation }
        set { urls.revocation = newValue }
    }
    public var userinfo: String? {
        get { urls.userinfo }
        set { urls.userinfo = newValue }
    }
    public var deviceAuthorization: String? {
        get { urls.deviceAuthorization }
        set { urls.deviceAuthorization = newValue }
    }
    public var endSession: String? {
        get { urls.endSession }
        set { urls.endSession = newValue }
    }
    public var jwksURI: String? {
        get { urls.jwksURI }
        set { urls.jwksURI = newValue }
    }
    /// RFC 9126 §5 `pushed_authorization_request_endpoint` (`--par-endpoint`).
    public var pushedAuthorizationRequest: String? {
        get { urls.pushedAuthorizationRequest }
        set { urls.pushedAuthorizationRequest = newValue }
    }

    public init(
        authorization: String? = nil, token: String? = nil, revocation: String? = nil, userinfo: String? = nil,
        deviceAuthorization: String? = nil, endSession: String? = nil, jwksURI: String? = nil,
        pushedAuthorizationRequest: String? = nil
    ) {
        urls = URLs(
            authorization: authorization, token: token, revocation: revocation, userinfo: userinfo,
            deviceAuthorization: deviceAuthorization, endSession: endSession, jwksURI: jwksURI,
            pushedAuthorizationRequest: pushedAuthorizationRequest)
    }

    /// The same JSON object as before the URLs moved out of line: the keys of `URLs.CodingKeys`.
    public init(from decoder: any Decoder) throws { urls = try URLs(from: decoder) }

    public func encode(to encoder: any Encoder) throws { try urls.encode(to: encoder) }

    /// Printed with its URLs, not its box.
    public var customMirror: Mirror { Mirror(self, children: Mirror(reflecting: urls).children, displayStyle: .struct) }

    public var isEmpty: Bool { self == ManualEndpoints() }

    /// Every JSON key of the object (an accounts file's `endpoints` may use only these).
    public static let jsonKeys: Set<String> = Set(URLs.CodingKeys.allCases.map(\.rawValue))

    /// The endpoints that are set, as (JSON key, URL) sorted by key: derived from the encoding, so
    /// a new endpoint is validated without another list to update.
    public var configured: [(key: String, url: String)] {
        guard case .object(let fields)? = try? WireJSON.encodeValue(self) else { return [] }
        return fields.compactMap { key, value in
            guard case .string(let url) = value else { return nil }
            return (key, url)
        }.sorted { $0.key < $1.key }
    }
}
