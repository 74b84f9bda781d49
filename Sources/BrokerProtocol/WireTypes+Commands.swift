/// Body of `POST /v1/accounts/{name}/login`.
public struct LoginRequest: Codable, Sendable, Equatable {
    /// How long the daemon keeps the login pending (default 300 s).
    public var timeoutSeconds: Int?
    /// Use the device authorization grant (RFC 8628) instead of a loopback redirect.
    public var device: Bool?
    /// Accept a login as another user than the one the account holds tokens for (true). Without
    /// it such a login fails and the account keeps its tokens.
    public var newSubject: Bool?
    /// Scopes this login asks for besides the account's own (`authctl refresh --scope`): the
    /// request's `scope` is the union, in order, without repeats. At most 32 RFC 6749 scope-tokens.
    public var addScopes: [String]?

    public init(timeoutSeconds: Int? = nil, device: Bool? = nil, newSubject: Bool? = nil, addScopes: [String]? = nil) {
        self.timeoutSeconds = timeoutSeconds
        self.device = device
        self.newSubject = newSubject
        self.addScopes = addScopes
    }

    /// What is wrong with `addScopes`, or nil.
    public var addScopesProblem: String? {
        guard let addScopes else { return nil }
        if addScopes.count > 32 { return "At most 32 added scopes." }
        if let bad = addScopes.first(where: { !TokenNarrowing.isScopeToken($0) }) {
            return "'\(bad.prefix(64))' is not a scope (RFC 6749 §3.3: printable ASCII, no space, quote or backslash)."
        }
        return nil
    }

    enum CodingKeys: String, CodingKey {
        case timeoutSeconds = "timeout_seconds"
        case device
        case newSubject = "new_subject"
        case addScopes = "add_scopes"
    }
}

/// The answer to `POST /v1/accounts/{name}/logout`.
public struct LogoutResult: Codable, Sendable, Equatable {
    /// True when the provider accepted the revocation request(s).
    public var revoked: Bool
    /// Why revocation did not happen or failed (best effort: tokens are deleted locally anyway).
    public var revocationNote: String?
    /// The provider's RP-initiated logout URL, to end the browser session too.
    public var endSessionURL: String?

    public init(revoked: Bool, revocationNote: String? = nil, endSessionURL: String? = nil) {
        self.revoked = revoked
        self.revocationNote = revocationNote
        self.endSessionURL = endSessionURL
    }

    enum CodingKeys: String, CodingKey {
        case revoked
        case revocationNote = "revocation_note"
        case endSessionURL = "end_session_url"
    }
}

/// The answer to `GET /v1/ping`.
public struct PingResult: Codable, Sendable, Equatable {
    public var version: String
    public var pid: Int32
    public var uptimeSeconds: Double

    public init(version: String, pid: Int32, uptimeSeconds: Double) {
        self.version = version
        self.pid = pid
        self.uptimeSeconds = uptimeSeconds
    }

    enum CodingKeys: String, CodingKey {
        case version, pid
        case uptimeSeconds = "uptime_seconds"
    }
}

/// The answer to `POST /v1/rekey`.
public struct RekeyResult: Codable, Sendable, Equatable {
    /// How many sealed values were re-encrypted.
    public var resealed: Int
    /// Where the new key was written (never the key itself).
    public var keyLocation: String

    public init(resealed: Int, keyLocation: String) {
        self.resealed = resealed
        self.keyLocation = keyLocation
    }

    enum CodingKeys: String, CodingKey {
        case resealed
        case keyLocation = "key_location"
    }
}

/// Account names appear in URLs and file names: keep them to a safe, readable alphabet.
public enum AccountName {
    public static let maximumLength = 64

    /// nil when `name` is acceptable, else the reason.
    public static func problem(with name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= maximumLength else {
            return "account names are 1 to \(maximumLength) characters"
        }
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= 97 && byte <= 122) || (byte >= 65 && byte <= 90) || (byte >= 48 && byte <= 57)
                || byte == 45 || byte == 95 || byte == 46
        }
        guard allowed, name.utf8.first != 46, name.utf8.first != 45 else {
            return "account names use letters, digits, '-', '_' and '.', and start with a letter or digit"
        }
        return nil
    }
}

/// Body of `POST /v1/accounts/{name}/token/rejected`: a resource server refused this access token
/// (git's `erase`). The daemon compares it with the current token, so a stale report cannot
/// throw away a token that was already replaced.
public struct TokenRejection: Codable, Sendable, Equatable {
    public var accessToken: String

    public init(accessToken: String) { self.accessToken = accessToken }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
    }
}

/// The answer to `POST /v1/accounts/{name}/token/rejected`.
public struct TokenRejectionResult: Codable, Sendable, Equatable {
    /// True when the rejected token was the current one: it will not be served again and the next
    /// token request refreshes. False when the account already has another token.
    public var refreshScheduled: Bool

    public init(refreshScheduled: Bool) { self.refreshScheduled = refreshScheduled }

    enum CodingKeys: String, CodingKey {
        case refreshScheduled = "refresh_scheduled"
    }
}

/// The answer to `PUT /v1/accounts/{name}` (`authctl account apply`).
public struct AccountUpdateResult: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable {
        /// The stored configuration already matched.
        case unchanged
        /// Only fields that do not affect what the tokens were granted for changed; tokens kept.
        case updated
        /// A security-relevant field changed (see `AccountConfiguration.securityProfile`): the
        /// account was logged out and needs `authctl login` again.
        case signedOut = "signed_out"
    }

    public var outcome: Outcome
    public var account: AccountStatus

    public init(outcome: Outcome, account: AccountStatus) {
        self.outcome = outcome
        self.account = account
    }
}

/// The answer to `GET /v1/accounts/{name}/id_token?min_ttl=S`: the OpenID Connect ID token of the
/// current sign-in, for resource servers that take ID tokens (Kubernetes API servers with
/// `--oidc-issuer-url`). `expires_at` is the ID token's own `exp`.
public struct IDTokenGrant: Codable, Sendable, Equatable {
    public var idToken: String
    public var expiresAt: String?

    public init(idToken: String, expiresAt: String?) {
        self.idToken = idToken
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case idToken = "id_token"
        case expiresAt = "expires_at"
    }
}

/// `POST /v1/discovery`'s body: the discovery document to read (https, or http to a loopback host),
/// and the account-to-be's `pin_sha256` pins, which the read must satisfy as the account's would.
public struct DiscoveryRequest: Codable, Sendable, Equatable {
    public var url: String
    public var pinSHA256: [String]?

    public init(url: String, pinSHA256: [String]? = nil) {
        self.url = url
        self.pinSHA256 = pinSHA256
    }

    enum CodingKeys: String, CodingKey {
        case url
        case pinSHA256 = "pin_sha256"
    }
}

/// `POST /v1/discovery`'s answer: the issuer the document names, after the same checks an account's
/// discovery applies (endpoints https, the issuer a valid one). Nothing is stored.
public struct DiscoveryResult: Codable, Sendable, Equatable {
    public var issuer: String

    public init(issuer: String) {
        self.issuer = issuer
    }
}
