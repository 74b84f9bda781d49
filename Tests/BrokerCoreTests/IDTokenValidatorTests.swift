import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import TestSupport
import Testing
import WireFormats

@Suite struct IDTokenValidatorTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    let key: TestSigningKey
    let keys: StaticKeySource
    let validator = IDTokenValidator(issuer: testIssuer, clientID: "client-1")

    init() throws {
        key = try TestSigningKey(.p256, kid: "k1")
        keys = StaticKeySource(try JWKSet(json: TestSigningKey.jwksJSON([key])))
    }

    static func claims(_ changes: [String: Any?] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": testIssuer, "sub": "user-42", "aud": "client-1", "exp": now.timeIntervalSince1970 + 600,
            "iat": now.timeIntervalSince1970 - 10, "nonce": "n-123", "email": "u@example.com",
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    func validate(
        _ token: String, expectation: IDTokenExpectation = .login(nonce: "n-123"), accessToken: Secret? = nil,
        keys: (any IDTokenKeySource)? = nil
    ) async throws(OIDCError) -> IDTokenClaims {
        try await validator.validate(
            Secret(token), keys: keys.map(AnyKeySource.init) ?? AnyKeySource(self.keys), expectation: expectation,
            accessToken: accessToken, now: Self.now)
    }

    func expectRefused(
        _ token: String, _ expected: IDTokenError, expectation: IDTokenExpectation = .login(nonce: "n-123"),
        accessToken: Secret? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        await #expect(throws: OIDCError.idToken(expected), sourceLocation: sourceLocation) {
            try await validate(token, expectation: expectation, accessToken: accessToken)
        }
    }

    @Test func validTokenIsAccepted() async throws {
        let claims = try await validate(try key.sign(claims: Self.claims()))
        #expect(claims.subject == "user-42" && claims.email == "u@example.com" && claims.audiences == ["client-1"])
    }

    @Test func everyDefectIsRefusedDistinctly() async throws {
        let payload = try TestSigningKey.json(Self.claims())
        await expectRefused(try key.tokenWithFlippedSignatureByte(payload: payload), .badSignature)
        await expectRefused(
            try key.sign(claims: Self.claims(["iss": "https://evil.example"])),
            .wrongIssuer(expected: testIssuer, found: "https://evil.example"))
        await expectRefused(
            try key.sign(claims: Self.claims(["aud": "other"])),
            .wrongAudience(clientID: "client-1", audiences: ["other"]))
        await expectRefused(
            try key.sign(claims: Self.claims(["aud": ["client-1", "other"]])),
            .wrongAuthorizedParty(clientID: "client-1", found: nil))
        await expectRefused(
            try key.sign(claims: Self.claims(["aud": ["client-1", "other"], "azp": "other"])),
            .wrongAuthorizedParty(clientID: "client-1", found: "other"))
        await expectRefused(
            try key.sign(claims: Self.claims(["exp": Self.now.timeIntervalSince1970 - 301])),
            .expired(expiresAt: Self.now.addingTimeInterval(-301)))
        await expectRefused(
            try key.sign(claims: Self.claims(["iat": Self.now.timeIntervalSince1970 + 301])),
            .issuedInFuture(issuedAt: Self.now.addingTimeInterval(301)))
        await expectRefused(try key.sign(claims: Self.claims(["nonce": "other"])), .nonceMismatch)
        await expectRefused(try key.sign(claims: Self.claims(["nonce": nil])), .missingNonce)
        await expectRefused(try TestSigningKey.unsecuredToken(payload: payload), .algorithmNotAllowed("none"))
        await expectRefused(try key.hs256TokenKeyedWithPublicKey(payload: payload), .algorithmNotAllowed("HS256"))
        await expectRefused(try key.sign(header: ["kid": "k-unknown"], claims: Self.claims()), .unknownKey(kid: "k-unknown"))
        await expectRefused(
            try key.sign(claims: Self.claims(["at_hash": "AAAAAAAAAAAAAAAAAAAAAA"])),
            .accessTokenHashMismatch, accessToken: Secret("the-access-token"))
        await expectRefused(
            try key.sign(claims: Self.claims(["sub": "someone-else"])), .subjectChanged,
            expectation: .refresh(previousSubject: "user-42"))
        await expectRefused(try key.sign(claims: Self.claims(["sub": nil])), .missingClaim("sub"))
        await #expect(throws: OIDCError.self) { try await validate("not.a-jwt") }
    }

    @Test func clockSkewWithinFiveMinutesIsTolerated() async throws {
        _ = try await validate(try key.sign(claims: Self.claims(["exp": Self.now.timeIntervalSince1970 - 200])))
        _ = try await validate(try key.sign(claims: Self.claims(["iat": Self.now.timeIntervalSince1970 + 200])))
        #expect(IDTokenValidator(issuer: "i", clientID: "c", clockSkew: .seconds(3600)).clockSkew == .seconds(300))
    }

    @Test func refreshedTokenNeedsNoNonceButTheSameSubject() async throws {
        let token = try key.sign(claims: Self.claims(["nonce": nil]))
        #expect(try await validate(token, expectation: .refresh(previousSubject: "user-42")).subject == "user-42")
    }

    @Test func atHashIsTheLeftHalfOfTheAlgorithmsHash() async throws {
        let access = "ya29.an-access-token"
        let p384 = try TestSigningKey(.p384, kid: "k384")
        let source = StaticKeySource(try JWKSet(json: TestSigningKey.jwksJSON([p384])))
        let digest = SHA384.hash(Array(access.utf8))
        let atHash = Base64URL.encode(digest.prefix(24))
        let token = try p384.sign(claims: Self.claims(["at_hash": atHash]))
        _ = try await validate(token, accessToken: Secret(access), keys: source)
        let sha256Hash = Base64URL.encode(SHA256.hash(Array(access.utf8)).prefix(16))
        await #expect(throws: OIDCError.idToken(.accessTokenHashMismatch)) {
            try await validate(
                try p384.sign(claims: Self.claims(["at_hash": sha256Hash])), accessToken: Secret(access), keys: source)
        }
    }

    @Test func algorithmOutsideTheConfiguredListIsRefused() async throws {
        let strict = IDTokenValidator(issuer: testIssuer, clientID: "client-1", allowedAlgorithms: [.rs256])
        await #expect(throws: OIDCError.idToken(.algorithmNotAllowed("ES256"))) {
            try await strict.validate(
                Secret(try key.sign(claims: Self.claims())), keys: keys, expectation: .login(nonce: "n-123"),
                accessToken: nil, now: Self.now)
        }
    }
}

/// Type-erases a key source so tests can swap sources.
struct AnyKeySource: IDTokenKeySource {
    let base: any IDTokenKeySource
    init(_ base: any IDTokenKeySource) { self.base = base }
    func candidates(kid: String?, algorithm: JWSAlgorithm) async throws(OIDCError) -> [JWK] {
        try await base.candidates(kid: kid, algorithm: algorithm)
    }
}
