import BrokerCrypto
import TestSupport
import Testing
import WireFormats

/// Keys generated once per test process and shared read-only (RSA generation costs ~100 ms).
enum SharedKeys {
    static let rsa = try! TestSigningKey(.rsa(bits: 2048), kid: "rsa-1")
    static let p256 = try! TestSigningKey(.p256, kid: "ec-256")
    static let p384 = try! TestSigningKey(.p384, kid: "ec-384")
    static let ed25519 = try! TestSigningKey(.ed25519, kid: "ed-1")
    static let all = [rsa, p256, p384, ed25519]

    /// The JWKS of all four keys, without `alg` so the RSA key serves all RSA algorithms.
    static func set() throws -> JWKSet {
        try JWKSet(json: TestSigningKey.jwksJSON(all, pinAlgorithm: false))
    }
}

private let claims = Array(#"{"iss":"https://issuer.example","sub":"42"}"#.utf8)

@Test(arguments: SharedKeys.all)
func tokensFromTheTestSignerVerifyForEveryAlgorithm(key: TestSigningKey) throws {
    let set = try SharedKeys.set()
    for algorithm in key.kind.algorithms {
        let jws = try JWSCompact.parse(key.sign(payload: claims, as: algorithm))
        #expect(jws.header.alg == algorithm.rawValue)
        #expect(jws.header.kid == key.kid)
        #expect(jws.payload == claims)
        #expect(try set.verify(jws) == algorithm)
        let candidates = set.candidates(kid: key.kid, algorithm: algorithm)
        #expect(candidates.map(\.kid) == [key.kid])
        try candidates[0].verify(jws, algorithm: algorithm)
    }
}

@Test(arguments: SharedKeys.all)
func aFlippedSignatureByteIsRefused(key: TestSigningKey) throws {
    let set = try SharedKeys.set()
    for algorithm in key.kind.algorithms {
        let header = ["alg": algorithm.rawValue]
        for index in [0, 31] {
            let token = try key.tokenWithFlippedSignatureByte(header: header, payload: claims, at: index)
            #expect(throws: JWSError.badSignature) { try set.verify(JWSCompact.parse(token)) }
        }
    }
}

@Test func aTokenFromAnotherKeyWithTheSameKidIsRefused() throws {
    let impostor = try TestSigningKey(.p256, kid: SharedKeys.p256.kid)
    let jws = try JWSCompact.parse(impostor.sign(payload: claims))
    #expect(throws: JWSError.badSignature) { try SharedKeys.set().verify(jws) }
}

@Test func aChangedPayloadIsRefused() throws {
    let parts = try SharedKeys.ed25519.sign(payload: claims).split(separator: ".")
    let forged = "\(parts[0]).\(Base64URL.encode(Array(#"{"iss":"https://issuer.example","sub":"1"}"#.utf8))).\(parts[2])"
    #expect(throws: JWSError.badSignature) { try SharedKeys.set().verify(JWSCompact.parse(forged)) }
}

@Test func algorithmAndKeyMustFit() throws {
    let set = try SharedKeys.set()
    let rsaKey = try #require(set.keys.first { $0.kid == SharedKeys.rsa.kid })
    let p256Key = try #require(set.keys.first { $0.kid == SharedKeys.p256.kid })
    // RSA-signed, labelled ES256 with the RSA key's kid: no EC key has that kid.
    let relabelled = try JWSCompact.parse(SharedKeys.rsa.sign(header: ["alg": "ES256"], payload: claims, as: .rs256))
    #expect(throws: JWSError.noMatchingKey(kid: SharedKeys.rsa.kid)) { try set.verify(relabelled) }
    #expect(throws: JWSError.invalidKey("key 'rsa-1' (RSA) cannot verify ES256")) {
        try rsaKey.verify(relabelled, algorithm: .es256)
    }
    // The curve must match: a P-256 key never verifies ES384.
    let es384 = try JWSCompact.parse(SharedKeys.p384.sign(header: ["kid": "ec-256"], payload: claims))
    #expect(throws: JWSError.noMatchingKey(kid: "ec-256")) { try set.verify(es384) }
    #expect(throws: JWSError.invalidKey("key 'ec-256' (EC P-256) cannot verify ES384")) {
        try p256Key.verify(es384, algorithm: .es384)
    }
}

@Test func aPinnedJWKAlgMustMatchTheToken() throws {
    let pinned = try JWK(json: SharedKeys.rsa.publicJWKJSON())
    #expect(pinned.alg == "RS256")
    #expect(pinned.supports(.rs256) && !pinned.supports(.ps256) && !pinned.supports(.rs512))
    let ps256 = try JWSCompact.parse(SharedKeys.rsa.sign(payload: claims, as: .ps256))
    #expect(throws: JWSError.invalidKey("key 'rsa-1' (RSA, alg RS256) cannot verify PS256")) {
        try pinned.verify(ps256, algorithm: .ps256)
    }
    #expect(throws: JWSError.noMatchingKey(kid: "rsa-1")) { try JWKSet(keys: [pinned]).verify(ps256) }
    // A JWK pinned to an algorithm of another key type is unusable.
    var members = try SharedKeys.p256.publicJWK()
    members["alg"] = "RS256"
    #expect(throws: JWSError.invalidKey("key 'ec-256' is pinned to 'RS256', which it cannot verify here")) {
        try JWK(json: TestSigningKey.json(members))
    }
}

@Test func unsecuredAndHMACTokensAreRefused() throws {
    let set = try SharedKeys.set()
    let none = try JWSCompact.parse(TestSigningKey.unsecuredToken(header: ["kid": "rsa-1"], payload: claims))
    #expect(none.signature.isEmpty)
    #expect(throws: JWSError.unsupportedAlgorithm("none")) { try set.verify(none) }
    for key in SharedKeys.all {
        let confused = try JWSCompact.parse(key.hs256TokenKeyedWithPublicKey(payload: claims))
        #expect(confused.header.alg == "HS256")
        #expect(throws: JWSError.unsupportedAlgorithm("HS256")) { try set.verify(confused) }
    }
}

@Test func anUnknownKidFindsNoKey() throws {
    let jws = try JWSCompact.parse(SharedKeys.rsa.sign(header: ["kid": "rotated-away"], payload: claims))
    #expect(throws: JWSError.noMatchingKey(kid: "rotated-away")) { try SharedKeys.set().verify(jws) }
}

@Test func withoutKidEveryFittingKeyIsTried() throws {
    let other = try TestSigningKey(.p256, kid: "ec-other")
    let set = try JWKSet(json: TestSigningKey.jwksJSON([other, SharedKeys.p256, SharedKeys.ed25519]))
    #expect(set.candidates(kid: nil, algorithm: .es256).map(\.kid) == ["ec-other", "ec-256"])
    #expect(set.candidates(kid: "ec-256", algorithm: .es256).map(\.kid) == ["ec-256"])
    #expect(set.candidates(kid: "ec-256", algorithm: .es384).isEmpty)
    // A token without kid is tried against every ES256 key and verifies with the right one.
    let withoutKid = try JWSCompact.parse(SharedKeys.p256.sign(payload: claims, includeKid: false))
    #expect(withoutKid.header.kid == nil)
    #expect(try set.verify(withoutKid) == .es256)
    let impostor = try JWSCompact.parse(TestSigningKey(.p256).sign(payload: claims, includeKid: false))
    #expect(throws: JWSError.badSignature) { try set.verify(impostor) }
}

@Test func rsaKeysShorterThan2048BitsAreRefused() throws {
    let weak = try TestSigningKey(.rsa(bits: 1024), kid: "weak")
    #expect(throws: JWSError.invalidKey("RSA modulus has 1024 bits; at least 2048 are required")) {
        try JWK(json: weak.publicJWKJSON())
    }
    let set = try JWKSet(json: TestSigningKey.jwksJSON([weak]))
    #expect(set.keys.isEmpty)
    #expect(set.skipped.count == 1)
    #expect(throws: JWSError.noMatchingKey(kid: "weak")) { try set.verify(JWSCompact.parse(weak.sign(payload: claims))) }
}

@Test func wrongLengthECDSASignaturesAreRefused() throws {
    let token = try SharedKeys.p256.sign(payload: claims)
    let parts = token.split(separator: ".")
    let signature = try Base64URL.decode(parts[2])
    for bad in [Array(signature.dropLast()), signature + [0], [UInt8](repeating: 0, count: 64), []] {
        let jws = try JWSCompact.parse("\(parts[0]).\(parts[1]).\(Base64URL.encode(bad))")
        #expect(throws: JWSError.badSignature) { try SharedKeys.set().verify(jws) }
    }
}
