import BrokerCrypto
import BrokerProtocol

/// An account's tokens: the one token model of the broker. The OIDC engine returns it, the account
/// state machine holds it, the token cache serves from it and the vault stores it as one unit
/// (`Vault.saveTokens` is one transaction; each field is one column of the `tokens` table).
///
/// Times are wall-clock Unix seconds, as stored. Every token value is a `Secret`, so printing a
/// `TokenSet` leaks nothing. The rules that fill it live in BrokerCore, each once: the expiry rule
/// (`TokenResponse.statedExpiry(receivedAt:)`, then `RefreshPolicy.effectiveExpiry(of:)`) and the
/// refresh carry-over rule (`TokenSet.carryingOver(from:)`).
public struct TokenSet: Sendable, Equatable {
    /// The fields, behind one copy-on-write reference: the state machine, the broker's last-saved
    /// copy and the token cache each hold the same set, and share one box instead of three
    /// 96-byte copies (docs/BENCHMARKS-archive.md, "The ID token out of memory").
    private struct Fields: Sendable, Equatable {
        var accessToken: Secret
        var refreshToken: Secret?
        var idToken: IDTokenHolding?
        var tokenType: String
        var scope: String?
        var expiresAt: Double?
        var obtainedAt: Double
        var dpopKey: ECSigningKey?
    }

    @OutOfLine private var fields: Fields

    public var accessToken: Secret {
        get { fields.accessToken }
        set { fields.accessToken = newValue }
    }
    public var refreshToken: Secret? {
        get { fields.refreshToken }
        set { fields.refreshToken = newValue }
    }
    /// The ID token, or the note that it is in the vault only (`IDTokenHolding`).
    public var idToken: IDTokenHolding? {
        get { fields.idToken }
        set { fields.idToken = newValue }
    }
    public var tokenType: String {
        get { fields.tokenType }
        set { fields.tokenType = newValue }
    }
    /// The granted scope (the requested one when the provider did not restate it).
    public var scope: String? {
        get { fields.scope }
        set { fields.scope = newValue }
    }
    /// The expiry the provider stated: `expires_in`, else a JWT access token's future `exp`; nil
    /// when it stated none (the broker then assumes a lifetime, and never stores that assumption).
    public var expiresAt: Double? {
        get { fields.expiresAt }
        set { fields.expiresAt = newValue }
    }
    /// When the token endpoint answered: the start of the access token's lifetime.
    public var obtainedAt: Double {
        get { fields.obtainedAt }
        set { fields.obtainedAt = newValue }
    }
    /// The DPoP key (RFC 9449) these tokens are bound to; nil for Bearer tokens. Made at login,
    /// carried over on refresh, stored sealed in the same row (`dpop_key`), never exported.
    public var dpopKey: ECSigningKey? {
        get { fields.dpopKey }
        set { fields.dpopKey = newValue }
    }

    public init(
        accessToken: Secret, refreshToken: Secret? = nil, idToken: Secret? = nil, tokenType: String = "Bearer",
        scope: String? = nil, expiresAt: Double? = nil, obtainedAt: Double, dpopKey: ECSigningKey? = nil
    ) {
        fields = Fields(
            accessToken: accessToken, refreshToken: refreshToken, idToken: idToken.map { .token($0) },
            tokenType: tokenType, scope: scope, expiresAt: expiresAt, obtainedAt: obtainedAt, dpopKey: dpopKey)
    }

    /// Whether `self` and `other` are one set in memory (not only equal).
    public func sharesStorage(with other: TokenSet) -> Bool { _fields.sharesStorage(with: other._fields) }
}

/// Printed (a test's failure message, a debugger) with its fields, not its box; the tokens in them
/// are `Secret`s and print redacted.
extension TokenSet: CustomReflectable {
    public var customMirror: Mirror { Mirror(self, children: Mirror(reflecting: fields).children, displayStyle: .struct) }
}

/// How a `TokenSet` holds its ID token. Nothing on the token path reads it (callers get access
/// tokens), and at ≈ 0.7 KB it was the largest part of an account's memory, so once a set is
/// committed the broker keeps it in the vault only (docs/BENCHMARKS-archive.md, "The ID token out of
/// memory") and reads it back for the few actions that hand it out or check it.
public enum IDTokenHolding: Sendable, Equatable {
    /// The token itself: just received, or read back from the vault for the action that needs it.
    case token(Secret)
    /// Sealed in the vault's `id_token` column and not in memory. Saving a set that holds this
    /// keeps that column as it is: it never erases or replaces the stored token. `identity` is
    /// what a refresh checks its answer against; nil until a refresh in this run has read it.
    case stored(identity: IDTokenIdentity?)

    /// The token when it is in memory.
    public var token: Secret? {
        if case .token(let token) = self { token } else { nil }
    }
}

/// What a refresh needs of the previous ID token without the token: the user it named (its `sub`,
/// which a refreshed ID token must keep, OpenID Connect Core §12.2) and, for Microsoft Entra, the
/// tenant (`tid`), whose endpoint refreshes and which must not change either. A class: a set
/// holding one is a pointer wide.
public final class IDTokenIdentity: Sendable, Equatable {
    public let subject: String
    public let tenantID: String?

    public init(subject: String, tenantID: String?) {
        self.subject = subject
        self.tenantID = tenantID
    }

    public static func == (lhs: IDTokenIdentity, rhs: IDTokenIdentity) -> Bool {
        lhs.subject == rhs.subject && lhs.tenantID == rhs.tenantID
    }
}
