import BrokerCrypto
import BrokerProtocol
import BrokerStore

// What the engine and the broker read off a token set. Nothing here is stored: the vault keeps the
// tokens only, and everything below is derived from them.
extension TokenSet {
    /// Whether a refresh is possible at all.
    public var canRefresh: Bool { refreshToken.map { !$0.isEmpty } ?? false }

    /// The claims of `idToken`. Every ID token in a set was validated against the provider's keys
    /// when it was received (a refresh answer's too, before it replaced the old one), so they are
    /// read here without checking again: the subject a refreshed ID token must keep, the expiry of
    /// `/v1/accounts/{name}/id-token`, the subject userinfo must match. Nil without an ID token.
    public var idTokenClaims: IDTokenClaims? {
        guard let idToken, let jws = try? JWSCompact.parse(idToken.revealString()) else { return nil }
        return try? IDTokenClaims(payload: jws.payload)
    }

    /// The access token as the socket API hands it out, with its expiry already in RFC 3339 (the
    /// token cache formats it once per token set, not once per request).
    func grant(expiresAt: String?) -> TokenGrant {
        TokenGrant(accessToken: accessToken.revealString(), tokenType: tokenType, expiresAt: expiresAt, scope: scope)
    }
}
