import BrokerCrypto
import BrokerProtocol
import FoundationEssentials
import WireFormats

/// What the validator must additionally know about the login the ID token belongs to.
public enum IDTokenExpectation: Sendable, Equatable {
    /// The token from the authorization code exchange: it must echo the nonce we sent.
    case login(nonce: String?)
    /// A token from a refresh (OIDC Core §12.2): no nonce check, and `sub` must be the login's —
    /// and so must `tid` when the login's token had one (a Microsoft Entra tenant).
    case refresh(previousSubject: String, previousTenant: String? = nil)
}

/// Where ID token verification keys come from: the JWKS cache, or a fixed set in tests.
public protocol IDTokenKeySource: Sendable {
    /// The keys that may verify a token with this `kid` and algorithm; empty when none.
    func candidates(kid: String?, algorithm: JWSAlgorithm) async throws(OIDCError) -> [JWK]
    /// Called when no candidate verified the signature: the provider may have replaced a key but
    /// kept its `kid`. Returns the candidates from a refetched set, or none when no refetch may
    /// happen now (a fixed set, or the rate limit).
    func candidatesAfterFailedSignature(kid: String?, algorithm: JWSAlgorithm) async -> [JWK]
}

extension IDTokenKeySource {
    public func candidatesAfterFailedSignature(kid: String?, algorithm: JWSAlgorithm) async -> [JWK] { [] }
}

/// A key set that never changes (manual configuration, tests).
public struct StaticKeySource: IDTokenKeySource {
    public let keySet: JWKSet

    public init(_ keySet: JWKSet) { self.keySet = keySet }

    public func candidates(kid: String?, algorithm: JWSAlgorithm) async throws(OIDCError) -> [JWK] {
        keySet.candidates(kid: kid, algorithm: algorithm)
    }
}

/// ID token validation as OpenID Connect Core §3.1.3.7 and §12.2 ask, in this order:
/// JWS form, `alg` allow-list, signature (key by `kid`), `iss` (with `tid` for a multi-tenant
/// Entra issuer, and the tenant allow-list), `aud`, `azp`, `exp`, `iat`, nonce (login) or subject
/// and tenant continuity (refresh), `at_hash` when present.
public struct IDTokenValidator: Sendable {
    public var issuer: String
    public var clientID: String
    /// Tolerated clock difference for `exp` and `iat` (at most 5 minutes).
    public var clockSkew: Duration
    /// Accepted algorithms; a subset of `JWSAlgorithm` (which never includes `none` or HMAC).
    public var allowedAlgorithms: Set<JWSAlgorithm>
    /// Tenants (`tid`) whose tokens are accepted; empty: any (`--tenant-allow`).
    public var allowedTenants: Set<String>

    public init(
        issuer: String, clientID: String, clockSkew: Duration = .seconds(300),
        allowedAlgorithms: Set<JWSAlgorithm> = Set(JWSAlgorithm.allCases), allowedTenants: Set<String> = []
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clockSkew = min(clockSkew, .seconds(300))
        self.allowedAlgorithms = allowedAlgorithms
        self.allowedTenants = allowedTenants
    }

    /// Validates `idToken` and returns its claims; every defect is a distinct `IDTokenError`
    /// (wrapped in `OIDCError.idToken`). Fetching keys may fail with a transport error.
    public func validate(
        _ idToken: Secret, keys: some IDTokenKeySource, expectation: IDTokenExpectation,
        accessToken: Secret?, now: Date
    ) async throws(OIDCError) -> IDTokenClaims {
        let jws: JWSCompact
        do {
            jws = try JWSCompact.parse(idToken.revealString())
        } catch {
            throw .idToken(.malformed(error.description))
        }
        guard let algorithm = JWSAlgorithm(rawValue: jws.header.alg), allowedAlgorithms.contains(algorithm) else {
            throw .idToken(.algorithmNotAllowed(jws.header.alg))
        }
        let candidates = try await keys.candidates(kid: jws.header.kid, algorithm: algorithm)
        guard !candidates.isEmpty else { throw .idToken(.unknownKey(kid: jws.header.kid)) }
        if !candidates.contains(where: { (try? $0.verify(jws, algorithm: algorithm)) != nil }) {
            // A key rotated under the same `kid`: one (rate-limited) refetch before refusing.
            let refetched = await keys.candidatesAfterFailedSignature(kid: jws.header.kid, algorithm: algorithm)
            guard refetched.contains(where: { (try? $0.verify(jws, algorithm: algorithm)) != nil }) else {
                throw .idToken(.badSignature)
            }
        }
        do {
            let claims = try IDTokenClaims(payload: jws.payload)
            try check(claims, expectation: expectation, now: now)
            if let accessToken, let atHash = claims.accessTokenHash {
                try checkAccessTokenHash(atHash, accessToken: accessToken, algorithm: algorithm)
            }
            return claims
        } catch {
            throw .idToken(error)
        }
    }

    /// The claim checks, separate from the signature so they can be tested on their own.
    func check(_ claims: IDTokenClaims, expectation: IDTokenExpectation, now: Date) throws(IDTokenError) {
        try checkIssuer(claims)
        guard claims.audiences.contains(clientID) else {
            throw .wrongAudience(clientID: clientID, audiences: claims.audiences)
        }
        // OIDC Core §3.1.3.7 items 4–5: with several audiences azp must name us; if present it must anyway.
        if claims.audiences.count > 1 || claims.authorizedParty != nil {
            guard claims.authorizedParty == clientID else {
                throw .wrongAuthorizedParty(clientID: clientID, found: claims.authorizedParty)
            }
        }
        let skew = Double(clockSkew.components.seconds)
        guard now.timeIntervalSince(claims.expiresAt) < skew else { throw .expired(expiresAt: claims.expiresAt) }
        guard claims.issuedAt.timeIntervalSince(now) <= skew else { throw .issuedInFuture(issuedAt: claims.issuedAt) }
        switch expectation {
        case .login(let expectedNonce?):
            guard let nonce = claims.nonce else { throw .missingNonce }
            guard ConstantTime.equals(nonce, expectedNonce) else { throw .nonceMismatch }
        case .login(nil):
            break
        case .refresh(let previousSubject, let previousTenant):
            guard claims.subject == previousSubject else { throw .subjectChanged }
            // The subject is unique only within a tenant: pin both, or another tenant's user could replace ours.
            if let previousTenant { guard claims.tenantID == previousTenant else { throw .tenantChanged } }
        }
    }

    /// `iss` is exactly the configured issuer — or, for a multi-tenant Entra issuer, exactly its
    /// `{tenantid}` template filled with the token's own `tid`, which must be a lowercase GUID
    /// (`EntraIssuer`). With an allow-list, the token's `tid` must be on it (absent: refused).
    func checkIssuer(_ claims: IDTokenClaims) throws(IDTokenError) {
        if let template = EntraIssuer.template(forConfigured: issuer) {
            guard let tenantID = claims.tenantID else { throw .missingClaim("tid") }
            guard TenantID.isValid(tenantID) else { throw .malformedTenantID(tenantID) }
            let expected = EntraIssuer.issuer(template: template, tenantID: tenantID)
            guard claims.issuer == expected else { throw .wrongIssuer(expected: expected, found: claims.issuer) }
        } else {
            guard claims.issuer == issuer else { throw .wrongIssuer(expected: issuer, found: claims.issuer) }
        }
        if !allowedTenants.isEmpty {
            guard let tenantID = claims.tenantID else { throw .missingClaim("tid") }
            guard allowedTenants.contains(tenantID) else { throw .tenantNotAllowed(tenantID) }
        }
    }

    /// OIDC Core §3.2.2.9: base64url of the left half of the algorithm's hash of the access token.
    func checkAccessTokenHash(_ atHash: String, accessToken: Secret, algorithm: JWSAlgorithm) throws(IDTokenError) {
        let digest = accessToken.withUnsafeBytes { algorithm.hash($0) }
        let expected = Base64URL.encode(digest.prefix(digest.count / 2))
        guard ConstantTime.equals(expected, atHash) else { throw .accessTokenHashMismatch }
    }
}
