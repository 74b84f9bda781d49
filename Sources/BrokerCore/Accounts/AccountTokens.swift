import BrokerCrypto

/// The tokens an account holds after a login or a refresh, as the account state machine sees them.
///
/// Times are wall-clock Unix seconds. `expiresAt` is nil when the provider sent no `expires_in`;
/// `RefreshPolicy.effectiveExpiry(of:)` then decides how long the token is trusted. Every token value
/// is a `Secret`, so printing an `AccountTokens` leaks nothing.
public struct AccountTokens: Sendable, Equatable {
    public var accessToken: Secret
    public var tokenType: String
    public var refreshToken: Secret?
    public var idToken: Secret?
    public var scope: String?
    /// When the token endpoint answered (the start of the access token's lifetime).
    public var obtainedAt: Double
    /// `obtainedAt + expires_in`, or nil when the provider gave no lifetime.
    public var expiresAt: Double?

    public init(
        accessToken: Secret, tokenType: String = "Bearer", refreshToken: Secret? = nil, idToken: Secret? = nil,
        scope: String? = nil, obtainedAt: Double, expiresAt: Double?
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.obtainedAt = obtainedAt
        self.expiresAt = expiresAt
    }

    /// Whether a refresh is possible at all.
    public var canRefresh: Bool { refreshToken.map { !$0.isEmpty } ?? false }

    /// A refresh response may omit the refresh token (RFC 6749 §6: keep the old one) and the ID token
    /// (OpenID Connect Core §12.2): carry them over from the tokens being replaced.
    func carryingOver(from previous: AccountTokens) -> AccountTokens {
        var merged = self
        if merged.refreshToken == nil { merged.refreshToken = previous.refreshToken }
        if merged.idToken == nil { merged.idToken = previous.idToken }
        if merged.scope == nil { merged.scope = previous.scope }
        return merged
    }
}
