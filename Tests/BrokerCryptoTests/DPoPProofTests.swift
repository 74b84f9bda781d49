import BrokerCrypto
import Foundation
import Testing
import WireFormats

/// DPoP proof JWTs (RFC 9449 §4.2) as a server would check them, with the JWS verifier.
@Suite struct DPoPProofTests {
    static let key = try! ECSigningKey.generate()
    static let url = "https://Server.Example.com:443/token?client_id=x#f"

    /// The proof's header and claims as JSON objects.
    static func decoded(_ proof: DPoPProof) throws -> (header: [String: Any], claims: [String: Any]) {
        let jws = try JWSCompact.parse(proof.compact)
        let header = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(proof.compact.prefix { $0 != "." })))
        let claims = try JSONSerialization.jsonObject(with: Data(jws.payload))
        return (try #require(header as? [String: Any]), try #require(claims as? [String: Any]))
    }

    @Test func aProofVerifiesWithItsEmbeddedPublicKeyAndCarriesTheClaims() throws {
        let proof = try DPoPProof(key: Self.key, method: "POST", url: Self.url, issuedAt: 1_700_000_000)
        let (header, claims) = try Self.decoded(proof)
        #expect(header["typ"] as? String == "dpop+jwt" && header["alg"] as? String == "ES256")
        let jwk = try #require(header["jwk"] as? [String: String])
        #expect(Set(jwk.keys) == ["kty", "crv", "x", "y"])  // public members only
        let jwkJSON = Array(try JSONSerialization.data(withJSONObject: jwk))
        try JWK(json: jwkJSON).verify(JWSCompact.parse(proof.compact), algorithm: .es256)
        #expect(try JWKThumbprint.of(jwkJSON: jwkJSON) == Self.key.publicJWK.thumbprint)
        #expect(claims["htm"] as? String == "POST")
        #expect(claims["htu"] as? String == "https://server.example.com/token")
        #expect(claims["iat"] as? Int == 1_700_000_000)
        #expect(claims["jti"] as? String == proof.jti && proof.jti.count >= 16)  // ≥ 96 bits of base64url
        #expect(claims["nonce"] == nil && claims["ath"] == nil)
        #expect(Set(claims.keys) == ["jti", "htm", "htu", "iat"])
    }

    /// Each signature works on a copy of the key's one initialised signing context: copies taken
    /// at the same time from many threads must each give a valid, distinct signature.
    @Test func concurrentProofsFromOneKeyAllVerify() async throws {
        let proofs = try await withThrowingTaskGroup(of: DPoPProof.self) { group in
            for index in 0..<64 {
                group.addTask { try DPoPProof(key: Self.key, method: "GET", url: Self.url + "\(index)", issuedAt: index) }
            }
            return try await group.reduce(into: [DPoPProof]()) { $0.append($1) }
        }
        let jwk = Array(Self.key.publicJWK.json.utf8)
        for proof in proofs { try JWK(json: jwk).verify(JWSCompact.parse(proof.compact), algorithm: .es256) }
        #expect(Set(proofs.map { $0.compact.split(separator: ".").last! }).count == proofs.count)
    }

    @Test func everyProofHasItsOwnJTI() throws {
        let jtis = try (0..<32).map { _ in try DPoPProof(key: Self.key, method: "GET", url: Self.url, issuedAt: 0).jti }
        #expect(Set(jtis).count == jtis.count)
    }

    @Test func nonceAndAccessTokenHashAreCarriedWhenGiven() throws {
        // RFC 9449 §7.1's example access token and the ath of its example proof
        // (also: printf %s TOKEN | openssl dgst -sha256 -binary | base64url).
        let token = Secret("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")
        #expect(DPoPProof.accessTokenHash(token) == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
        let proof = try DPoPProof(
            key: Self.key, method: "GET", url: "https://resource.example.org/protectedresource", issuedAt: 1,
            nonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v", accessToken: token)
        let claims = try Self.decoded(proof).claims
        #expect(claims["ath"] as? String == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
        #expect(claims["nonce"] as? String == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        #expect(!proof.compact.contains(token.revealString()))
    }

    @Test func aTamperedProofFails() throws {
        let proof = try DPoPProof(key: Self.key, method: "POST", url: Self.url, issuedAt: 5)
        let parts = proof.compact.split(separator: ".").map(String.init)
        let forged = Array(#"{"htm":"POST","htu":"https://evil.example/token","iat":5,"jti":"\#(proof.jti)"}"#.utf8)
        let tampered = [parts[0], Base64URL.encode(forged), parts[2]].joined(separator: ".")
        #expect(throws: JWSError.badSignature) {
            try JWK(json: Array(Self.key.publicJWK.json.utf8)).verify(JWSCompact.parse(tampered), algorithm: .es256)
        }
    }

    @Test func badMethodsNoncesAndURLsAreRefusedBeforeSigning() {
        for method in ["", "GE T", "GET\r\n", "P(OST)", String(repeating: "A", count: 33)] {
            #expect(throws: DPoPError.invalidMethod) { try DPoPProof(key: Self.key, method: method, url: Self.url, issuedAt: 0) }
        }
        for nonce in ["", "a b", "quote\"", "back\\slash", "é", String(repeating: "n", count: DPoPProof.maximumNonceLength + 1)] {
            #expect(throws: DPoPError.invalidNonce) {
                try DPoPProof(key: Self.key, method: "GET", url: Self.url, issuedAt: 0, nonce: nonce)
            }
        }
        #expect(throws: DPoPError.self) { try DPoPProof(key: Self.key, method: "GET", url: "/relative", issuedAt: 0) }
    }

    @Test func theDescriptionNamesOnlyMethodAndOrigin() throws {
        let proof = try DPoPProof(
            key: Self.key, method: "POST", url: "https://api.example.com/v1/secret-path?token=abc", issuedAt: 0,
            accessToken: Secret("at-123"))
        #expect(String(describing: proof) == "DPoPProof(POST https://api.example.com)")
    }
}
