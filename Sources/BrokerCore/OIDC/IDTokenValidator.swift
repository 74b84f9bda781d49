import BrokerCrypto
import FoundationEssentials

/// What the validator must additionally know about the login the ID token belongs to.
public enum IDTokenExpectation: Sendable, Equatable {
    /// The token from the authorization code exchange: it must echo the nonce we sent.
    case login(nonce: String?)
    /// A token from a refresh (OIDC Core §12.2): no nonce check, and `sub` must be the login's.
    case refresh(previousSubject: String)
}

/// Where ID token verification keys come from: the JWKS cache, or a fixed set in tests.
public protocol IDTokenKeySource: Sendable {
    /// The keys that may verify a token with this `kid` and algorithm; empty when none.
    func candidates(kid: String?, algorithm: JWSAlgorithm) async throws(OIDCError) -> [JWK]
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
/// JWS form, `alg` allow-list, signature (key by `kid`), `iss`, `aud`, `azp`, `exp`, `iat`,
/// nonce (login) or subject continuity (refresh), `at_hash` when present.
public struct IDTokenValidator: Sendable {
    public var issuer: String
    public var clientID: String
    /// Tolerated clock difference for `exp` and `iat` (at most 5 minutes).
    public var clockSkew: Duration
    /// Accepted algorithms; a subset of `JWSAlgorithm` (which never includes `none` or HMAC).
    public var allowedAlgorithms: Set<JWSAlgorithm>

    public init(
        issuer: String, clientID: String, clockSkew: Duration = .seconds(300),
        allowedAlgorithms: Set<JWSAlgorithm> = Set(JWSAlgorithm.allCases)
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clockSkew = min(clockSkew, .seconds(300))
        self.allowedAlgorithms = allowedAlgorithms
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
        guard candidates.contains(where: { (try? $0.verify(jws, algorithm: algorithm)) != nil }) else {
            throw .idToken(.badSignature)
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
        guard claims.issuer == issuer else { throw .wrongIssuer(expected: issuer, found: claims.issuer) }
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
        case .refresh(let previousSubject):
            guard claims.subject == previousSubject else { throw .subjectChanged }
        }
    }

    /// OIDC Core §3.2.2.9: base64url of the left half of the algorithm's hash of the access token.
    func checkAccessTokenHash(_ atHash: String, accessToken: Secret, algorithm: JWSAlgorithm) throws(IDTokenError) {
        let digest = accessToken.withUnsafeBytes { algorithm.hash($0) }
        let expected = Base64URL.encode(digest.prefix(digest.count / 2))
        guard ConstantTime.equals(expected, atHash) else { throw .accessTokenHashMismatch }
    }
}
