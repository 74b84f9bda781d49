import BrokerCrypto
import BrokerProtocol
import BrokerStore

// What the engine and the broker read off a token set. Nothing here is stored: the vault keeps the
// tokens only, and everything below is derived from them.
extension TokenSet {
    /// Whether a refresh is possible at all.
    public var canRefresh: Bool { refreshToken.map { !$0.isEmpty } ?? false }

    /// The claims of the ID token when it is in memory. Every ID token in a set was validated
    /// against the provider's keys when it was received (a refresh answer's too, before it
    /// replaced the old one), so they are read here without checking again: the expiry of
    /// `/v1/accounts/{name}/id-token`, the subject userinfo must match. Nil without an ID token in
    /// memory (none, or `.stored`: read it back first).
    public var idTokenClaims: IDTokenClaims? {
        guard let idToken = idToken?.token, let jws = try? JWSCompact.parse(idToken.revealString()) else { return nil }
        return try? IDTokenClaims(payload: jws.payload)
    }

    /// What a refresh checks its answer against: the previous ID token's subject and tenant.
    /// `.none` without an ID token; `.unknown` when it is stored and this run has not read it —
    /// the broker reads it back before refreshing (`TokenBroker.readingIDTokenIdentity`).
    var idTokenIdentity: IDTokenIdentityLookup {
        switch idToken {
        case nil: .none
        case .stored(let identity?): .known(identity)
        case .stored(nil): .unknown
        case .token: idTokenClaims.map { .known(IDTokenIdentity(subject: $0.subject, tenantID: $0.tenantID)) } ?? .none
        }
    }

    /// `idTokenIdentity` for a refresh: nil without an ID token. Fails closed when the ID token is
    /// stored and unread: refreshing without it would skip the check that the answer is for the
    /// same user.
    func previousIDTokenIdentity() throws(OIDCError) -> IDTokenIdentity? {
        switch idTokenIdentity {
        case .none: return nil
        case .known(let identity): return identity
        case .unknown: throw .storage("the stored ID token was not read before the refresh")
        }
    }

    /// The set as the broker keeps it once committed: the ID token in the vault only, its identity
    /// in memory. `known`: that identity as the token's validation read it (a refresh's); without
    /// it the token is parsed once, here rather than at the next refresh.
    func keepingIDTokenStored(identity known: IDTokenIdentity? = nil) -> TokenSet {
        guard case .token = idToken else { return self }
        var kept = self
        let identity = known ?? idTokenClaims.map { IDTokenIdentity(subject: $0.subject, tenantID: $0.tenantID) }
        kept.idToken = .stored(identity: identity)
        return kept
    }

    /// The access token as the socket API hands it out, with its expiry already in RFC 3339 (the
    /// token cache formats it once per token set, not once per request).
    func grant(expiresAt: String?) -> TokenGrant {
        TokenGrant(accessToken: accessToken.revealString(), tokenType: tokenType, expiresAt: expiresAt, scope: scope)
    }
}

/// `TokenSet.idTokenIdentity`.
enum IDTokenIdentityLookup: Equatable {
    case none
    case known(IDTokenIdentity)
    case unknown
}
