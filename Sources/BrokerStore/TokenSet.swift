import BrokerCrypto

/// An account's tokens: the one token model of the broker. The OIDC engine returns it, the account
/// state machine holds it, the token cache serves from it and the vault stores it as one unit
/// (`Vault.saveTokens` is one transaction; each field is one column of the `tokens` table).
///
/// Times are wall-clock Unix seconds, as stored. Every token value is a `Secret`, so printing a
/// `TokenSet` leaks nothing. The rules that fill it live in BrokerCore, each once: the expiry rule
/// (`TokenResponse.statedExpiry(receivedAt:)`, then `RefreshPolicy.effectiveExpiry(of:)`) and the
/// refresh carry-over rule (`TokenSet.carryingOver(from:)`).
public struct TokenSet: Sendable, Equatable {
    public var accessToken: Secret
    public var refreshToken: Secret?
    public var idToken: Secret?
    public var tokenType: String
    /// The granted scope (the requested one when the provider did not restate it).
    public var scope: String?
    /// The expiry the provider stated: `expires_in`, else a JWT access token's future `exp`; nil
    /// when it stated none (the broker then assumes a lifetime, and never stores that assumption).
    public var expiresAt: Double?
    /// When the token endpoint answered: the start of the access token's lifetime.
    public var obtainedAt: Double
    /// The DPoP key (RFC 9449) these tokens are bound to; nil for Bearer tokens. Made at login,
    /// carried over on refresh, stored sealed in the same row (`dpop_key`), never exported.
    public var dpopKey: ECSigningKey?

    public init(
        accessToken: Secret, refreshToken: Secret? = nil, idToken: Secret? = nil, tokenType: String = "Bearer",
        scope: String? = nil, expiresAt: Double? = nil, obtainedAt: Double, dpopKey: ECSigningKey? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.tokenType = tokenType
        self.scope = scope
        self.expiresAt = expiresAt
        self.obtainedAt = obtainedAt
        self.dpopKey = dpopKey
    }
}
