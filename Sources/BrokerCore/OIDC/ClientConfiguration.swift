import BrokerCrypto
import BrokerHTTP
import BrokerProtocol

/// How the client authenticates at the token, revocation and device endpoints (RFC 6749 §2.3).
public enum ClientAuthentication: Sendable, Equatable {
    /// A public client (native app): sends only `client_id`; PKCE protects the code.
    case none
    /// HTTP Basic with the form-urlencoded id and secret (RFC 6749 §2.3.1).
    case clientSecretBasic(Secret)
    /// `client_id` and `client_secret` in the form body.
    case clientSecretPost(Secret)

    /// The `token_endpoint_auth_methods_supported` name of this method.
    public var methodName: String {
        switch self {
        case .none: "none"
        case .clientSecretBasic: "client_secret_basic"
        case .clientSecretPost: "client_secret_post"
        }
    }
}

/// What an account configures about its OAuth client.
public struct ClientConfiguration: Sendable, Equatable {
    public var clientID: String
    public var authentication: ClientAuthentication
    /// Requested scopes, in order; `openid` makes the request an OpenID Connect one (nonce, ID token).
    public var scopes: [String]
    /// RFC 8707 resource indicators (absolute URIs), one `resource` parameter each.
    public var resources: [String]
    /// The `audience` parameter some providers use instead of `resource` (Auth0 style).
    public var audience: String?
    /// Extra authorization parameters, e.g. `provider=authkit`, `prompt`, `login_hint`, `acr_values`.
    public var extraParameters: [FormField]
    /// Where the provider sends the browser after RP-initiated logout, when registered.
    public var postLogoutRedirectURI: String?
    /// How the code exchange and the refresh are encoded (`TokenEndpointGrant.request`).
    public var tokenRequestFormat: TokenRequestFormat
    /// Microsoft Entra tenants (`tid`) whose ID tokens are accepted; empty: any (`--tenant-allow`).
    public var allowedTenants: [String]
    /// Whether a browser login pushes its authorization request first (RFC 9126; `PushedAuthorization`).
    public var pushedAuthorization: PushedAuthorizationMode
    /// The DPoP key (RFC 9449) this client's token-endpoint calls are proved with: a fresh one for a
    /// login, the tokens' own for a refresh; nil: Bearer. Set by the caller, never configured.
    public var dpopKey: ECSigningKey?

    public init(
        clientID: String, authentication: ClientAuthentication = .none, scopes: [String] = ["openid"],
        resources: [String] = [], audience: String? = nil, extraParameters: [FormField] = [],
        postLogoutRedirectURI: String? = nil, tokenRequestFormat: TokenRequestFormat = .form, allowedTenants: [String] = [],
        pushedAuthorization: PushedAuthorizationMode = .auto
    ) {
        self.allowedTenants = allowedTenants
        self.clientID = clientID
        self.authentication = authentication
        self.scopes = scopes
        self.resources = resources
        self.audience = audience
        self.extraParameters = extraParameters
        self.postLogoutRedirectURI = postLogoutRedirectURI
        self.tokenRequestFormat = tokenRequestFormat
        self.pushedAuthorization = pushedAuthorization
    }

    /// True when `openid` is among the scopes: the login is an OpenID Connect one.
    public var isOpenIDConnect: Bool { scopes.contains("openid") }

    /// The scopes as the space-separated `scope` parameter (RFC 6749 §3.3).
    var scopeParameter: String { scopes.joined(separator: " ") }
}
