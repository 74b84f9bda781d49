/// An access token as served by `GET /v1/accounts/{name}/token`.
/// Refresh tokens and client secrets never leave the daemon.
public struct TokenGrant: Codable, Sendable, Equatable {
    public var accessToken: String
    public var tokenType: String
    /// RFC 3339 UTC, or nil when the provider gave no lifetime.
    public var expiresAt: String?
    public var scope: String?

    public init(accessToken: String, tokenType: String, expiresAt: String?, scope: String?) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.scope = scope
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresAt = "expires_at"
        case scope
    }
}

/// The lifecycle state of an account as shown by `authctl status`.
public enum AccountState: String, Codable, Sendable, CaseIterable {
    case loggedOut = "logged_out"
    case pendingLogin = "pending_login"
    case active
    case refreshing
    case loginRequired = "login_required"
    case error
}

/// One account in `GET /v1/status` and `GET /v1/accounts`.
public struct AccountStatus: Codable, Sendable, Equatable {
    public var name: String
    public var state: AccountState
    public var expiresAt: String?
    public var lastRefresh: String?
    public var lastError: WireError?
    public var subject: String?
    /// Configuration, present in `GET /v1/accounts` and `account show`.
    public var configuration: AccountConfiguration?

    public init(
        name: String, state: AccountState, expiresAt: String? = nil, lastRefresh: String? = nil,
        lastError: WireError? = nil, subject: String? = nil, configuration: AccountConfiguration? = nil
    ) {
        self.name = name
        self.state = state
        self.expiresAt = expiresAt
        self.lastRefresh = lastRefresh
        self.lastError = lastError
        self.subject = subject
        self.configuration = configuration
    }

    enum CodingKeys: String, CodingKey {
        case name, state, subject, configuration
        case expiresAt = "expires_at"
        case lastRefresh = "last_refresh"
        case lastError = "last_error"
    }

    // Encode nulls explicitly: the documented JSON shape always has every key.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(state, forKey: .state)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(lastRefresh, forKey: .lastRefresh)
        try container.encode(lastError, forKey: .lastError)
        try container.encode(subject, forKey: .subject)
        try container.encodeIfPresent(configuration, forKey: .configuration)
    }
}

/// `{"accounts": [...]}`
public struct AccountList: Codable, Sendable, Equatable {
    public var accounts: [AccountStatus]
    public init(accounts: [AccountStatus]) { self.accounts = accounts }
}

/// Manually configured endpoints, for providers without discovery.
public struct ManualEndpoints: Codable, Sendable, Equatable {
    public var authorization: String?
    public var token: String?
    public var revocation: String?
    public var userinfo: String?
    public var deviceAuthorization: String?
    public var endSession: String?
    public var jwksURI: String?

    public init(
        authorization: String? = nil, token: String? = nil, revocation: String? = nil, userinfo: String? = nil,
        deviceAuthorization: String? = nil, endSession: String? = nil, jwksURI: String? = nil
    ) {
        self.authorization = authorization
        self.token = token
        self.revocation = revocation
        self.userinfo = userinfo
        self.deviceAuthorization = deviceAuthorization
        self.endSession = endSession
        self.jwksURI = jwksURI
    }

    public var isEmpty: Bool { self == ManualEndpoints() }

    enum CodingKeys: String, CodingKey {
        case authorization = "authorization_endpoint"
        case token = "token_endpoint"
        case revocation = "revocation_endpoint"
        case userinfo = "userinfo_endpoint"
        case deviceAuthorization = "device_authorization_endpoint"
        case endSession = "end_session_endpoint"
        case jwksURI = "jwks_uri"
    }
}

/// An account's configuration as sent by `authctl account add` (`POST /v1/accounts`).
/// The client secret travels only in this request and is sealed by the daemon; it is never returned.
public struct AccountConfiguration: Codable, Sendable, Equatable {
    public var name: String
    public var issuer: String
    public var clientID: String
    public var clientSecret: String?
    public var scopes: [String]
    public var audience: String?
    public var redirectHost: String?
    public var redirectPort: Int?
    public var redirectPath: String?
    public var extraParameters: [String: String]
    public var endpoints: ManualEndpoints?
    /// Where to fetch the discovery document when it is not under the issuer (Shopify: the shop's
    /// domain). The document's `issuer` must still equal `issuer`.
    public var discoveryURL: String?
    /// `authctl git-credential` answers for remote URLs starting with this prefix
    /// (`https://git.example.com/` or `https://git.example.com/team/`).
    public var gitURLPrefix: String?
    /// The username `git-credential` answers with (default `oauth2`).
    public var gitUsername: String?

    public init(
        name: String, issuer: String, clientID: String, clientSecret: String? = nil, scopes: [String] = [],
        audience: String? = nil, redirectHost: String? = nil, redirectPort: Int? = nil, redirectPath: String? = nil,
        extraParameters: [String: String] = [:], endpoints: ManualEndpoints? = nil, discoveryURL: String? = nil,
        gitURLPrefix: String? = nil, gitUsername: String? = nil
    ) {
        self.name = name
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scopes = scopes
        self.audience = audience
        self.redirectHost = redirectHost
        self.redirectPort = redirectPort
        self.redirectPath = redirectPath
        self.extraParameters = extraParameters
        self.endpoints = endpoints
        self.discoveryURL = discoveryURL
        self.gitURLPrefix = gitURLPrefix
        self.gitUsername = gitUsername
    }

    enum CodingKeys: String, CodingKey {
        case name, issuer, scopes, audience, endpoints
        case discoveryURL = "discovery_url"
        case gitURLPrefix = "git_url_prefix"
        case gitUsername = "git_username"
        case clientID = "client_id"
        case clientSecret = "client_secret"
        case redirectHost = "redirect_host"
        case redirectPort = "redirect_port"
        case redirectPath = "redirect_path"
        case extraParameters = "extra_parameters"
    }

    /// Only `name`, `issuer` and `client_id` are required (docs/api.md): `curl` users need not
    /// spell out empty `scopes` or `extra_parameters`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            name: try container.decode(String.self, forKey: .name),
            issuer: try container.decode(String.self, forKey: .issuer),
            clientID: try container.decode(String.self, forKey: .clientID),
            clientSecret: try container.decodeIfPresent(String.self, forKey: .clientSecret),
            scopes: try container.decodeIfPresent([String].self, forKey: .scopes) ?? [],
            audience: try container.decodeIfPresent(String.self, forKey: .audience),
            redirectHost: try container.decodeIfPresent(String.self, forKey: .redirectHost),
            redirectPort: try container.decodeIfPresent(Int.self, forKey: .redirectPort),
            redirectPath: try container.decodeIfPresent(String.self, forKey: .redirectPath),
            extraParameters: try container.decodeIfPresent([String: String].self, forKey: .extraParameters) ?? [:],
            endpoints: try container.decodeIfPresent(ManualEndpoints.self, forKey: .endpoints),
            discoveryURL: try container.decodeIfPresent(String.self, forKey: .discoveryURL),
            gitURLPrefix: try container.decodeIfPresent(String.self, forKey: .gitURLPrefix),
            gitUsername: try container.decodeIfPresent(String.self, forKey: .gitUsername))
    }
}

/// The answer to `POST /v1/accounts/{name}/login`.
public struct LoginStarted: Codable, Sendable, Equatable {
    public var loginID: String
    public var authorizationURL: String
    public var expiresAt: String
    /// Device grant only: the code the user types at `verificationURI`.
    public var userCode: String?
    public var verificationURI: String?

    public init(
        loginID: String, authorizationURL: String, expiresAt: String, userCode: String? = nil,
        verificationURI: String? = nil
    ) {
        self.loginID = loginID
        self.authorizationURL = authorizationURL
        self.expiresAt = expiresAt
        self.userCode = userCode
        self.verificationURI = verificationURI
    }

    enum CodingKeys: String, CodingKey {
        case loginID = "login_id"
        case authorizationURL = "authorization_url"
        case expiresAt = "expires_at"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
    }
}

/// The answer to `GET /v1/logins/{id}?wait=S`.
public struct LoginStatus: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable {
        case pending, succeeded, failed
        case timedOut = "timed_out"
    }

    public var loginID: String
    public var account: String
    public var outcome: Outcome
    public var error: WireError?
    public var subject: String?

    public init(loginID: String, account: String, outcome: Outcome, error: WireError? = nil, subject: String? = nil) {
        self.loginID = loginID
        self.account = account
        self.outcome = outcome
        self.error = error
        self.subject = subject
    }

    enum CodingKeys: String, CodingKey {
        case account, outcome, error, subject
        case loginID = "login_id"
    }
}
