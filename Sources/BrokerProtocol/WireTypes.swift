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
    /// The granted scope of the current tokens (space-separated), nil without tokens.
    public var scope: String?
    /// Configuration, present in `GET /v1/accounts` and `account show`.
    public var configuration: AccountConfiguration?
    /// Only in `POST /v1/accounts`'s answer: the provider metadata's `dpop_signing_alg_values_supported`
    /// (RFC 9449 §5.1), so `authctl account add` can suggest `--dpop`. Absent when it lists none.
    public var dpopSigningAlgValuesSupported: [String]?
    /// Scopes a resource server asked for (`insufficient_scope`) that the next `authctl login` adds;
    /// absent when none (docs/mcp.md, step-up).
    public var stepUpScope: String?

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
        case name, state, subject, scope, configuration
        case expiresAt = "expires_at"
        case lastRefresh = "last_refresh"
        case lastError = "last_error"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
        case stepUpScope = "step_up_scope"
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
        try container.encode(scope, forKey: .scope)
        try container.encodeIfPresent(configuration, forKey: .configuration)
        try container.encodeIfPresent(dpopSigningAlgValuesSupported, forKey: .dpopSigningAlgValuesSupported)
        try container.encodeIfPresent(stepUpScope, forKey: .stepUpScope)
    }
}

/// `{"accounts": [...]}`
public struct AccountList: Codable, Sendable, Equatable {
    public var accounts: [AccountStatus]
    public init(accounts: [AccountStatus]) { self.accounts = accounts }
}

/// The answer to `POST /v1/accounts/{name}/login`.
public struct LoginStarted: Codable, Sendable, Equatable {
    public var loginID: String
    public var authorizationURL: String
    public var expiresAt: String
    /// Device grant only: the code the user types at `verificationURI`.
    public var userCode: String?
    public var verificationURI: String?
    /// Scopes this login asks for beyond the account's own because a resource server asked for
    /// them (step-up); authctl names them before the browser opens.
    public var stepUpScopes: [String]?

    public init(
        loginID: String, authorizationURL: String, expiresAt: String, userCode: String? = nil,
        verificationURI: String? = nil, stepUpScopes: [String]? = nil
    ) {
        self.loginID = loginID
        self.authorizationURL = authorizationURL
        self.expiresAt = expiresAt
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.stepUpScopes = stepUpScopes
    }

    enum CodingKeys: String, CodingKey {
        case loginID = "login_id"
        case authorizationURL = "authorization_url"
        case expiresAt = "expires_at"
        case userCode = "user_code"
        case verificationURI = "verification_uri"
        case stepUpScopes = "step_up_scopes"
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

/// The body of `POST /v1/logins/callback`: the whole redirect URL a private-use scheme handler
/// received (`authctl callback URL`). It carries the authorization code: printing it never shows it.
public struct LoginCallbackRequest: Codable, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public var url: String

    public init(url: String) {
        self.url = url
    }

    public var description: String { "LoginCallbackRequest(url: <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["url": "<redacted>"]) }
}
