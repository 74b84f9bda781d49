import FoundationEssentials

/// Why an ID token was refused. One case per defect, so a test (and a person reading a log)
/// can tell a wrong audience from an expired token. No case carries the token itself.
public enum IDTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a JWS compact serialization, or a payload that is not a JSON object.
    case malformed(String)
    /// `alg` is `none`, an HMAC algorithm, or otherwise not on the allow-list.
    case algorithmNotAllowed(String)
    /// No JWKS key has this `kid`, even after refetching the JWKS once.
    case unknownKey(kid: String?)
    /// No cached key has this `kid` and the JWKS was refetched too recently to refetch again:
    /// a key rotation the cache has not seen yet is possible, so this passes (retry after `retryAfter`).
    case unknownKeyRefetchDeferred(kid: String?, retryAfter: Duration)
    /// The signature does not verify with the provider's key.
    case badSignature
    /// A required claim is absent or has the wrong type.
    case missingClaim(String)
    /// `iss` is not the configured issuer.
    case wrongIssuer(expected: String, found: String)
    /// `aud` does not contain our client id.
    case wrongAudience(clientID: String, audiences: [String])
    /// Several audiences and no `azp`, or an `azp` that is not our client id.
    case wrongAuthorizedParty(clientID: String, found: String?)
    /// `exp` is in the past (beyond the allowed clock skew).
    case expired(expiresAt: Date)
    /// `iat` is in the future (beyond the allowed clock skew).
    case issuedInFuture(issuedAt: Date)
    /// We sent a nonce and the token has none.
    case missingNonce
    /// The token's nonce is not the one we sent (replayed or injected token).
    case nonceMismatch
    /// `at_hash` does not match the access token issued with it.
    case accessTokenHashMismatch
    /// A refreshed ID token names another subject than the login's (OIDC Core §12.2).
    case subjectChanged
    /// A multi-tenant Entra token's `tid` is not a lowercase GUID (`TenantID.isValid`).
    case malformedTenantID(String)
    /// The token's tenant is not on the account's tenant allow-list.
    case tenantNotAllowed(String)
    /// A refreshed ID token names another tenant (`tid`) than the login's.
    case tenantChanged

    public var description: String {
        switch self {
        case .malformed(let why): "malformed ID token: \(why)"
        case .algorithmNotAllowed(let alg):
            "ID token algorithm '\(ProviderText.sanitize(alg))' is not accepted (never 'none' or HMAC)"
        case .unknownKey(let kid):
            "no key '\(ProviderText.sanitize(kid ?? "<none>"))' in the provider's JWKS, even after refetching it"
        case .unknownKeyRefetchDeferred(let kid, let retryAfter):
            "no key '\(ProviderText.sanitize(kid ?? "<none>"))' in the cached JWKS; it is refetched again in "
                + "\(retryAfter.components.seconds) s (rate limit)"
        case .badSignature: "ID token signature does not verify"
        case .missingClaim(let name): "ID token lacks the '\(name)' claim or has it with the wrong type"
        case .wrongIssuer(let expected, let found):
            "ID token issuer is '\(ProviderText.sanitize(found))', expected '\(expected)'"
        case .wrongAudience(let clientID, let audiences):
            "ID token is for \(audiences.map(ProviderText.sanitize)), not for client '\(clientID)'"
        case .wrongAuthorizedParty(let clientID, let found):
            "ID token authorized party is '\(ProviderText.sanitize(found ?? "<none>"))', expected '\(clientID)'"
        case .expired(let expiresAt): "ID token expired at \(expiresAt); check the system clock"
        case .issuedInFuture(let issuedAt): "ID token issued in the future (\(issuedAt)); check the system clock"
        case .missingNonce: "ID token has no nonce although one was sent"
        case .nonceMismatch: "ID token nonce does not match this login (replayed token?)"
        case .accessTokenHashMismatch: "ID token at_hash does not match the access token"
        case .subjectChanged: "refreshed ID token names another user than the one who logged in"
        case .malformedTenantID(let tid): "ID token tenant id 'tid' is '\(ProviderText.sanitize(tid))', not a lowercase GUID"
        case .tenantNotAllowed(let tid):
            "ID token is from tenant '\(ProviderText.sanitize(tid))', which is not in the account's --tenant-allow list"
        case .tenantChanged: "refreshed ID token names another tenant (tid) than the one the login was made in"
        }
    }
}
