import BrokerCrypto
import TestSupport
import Testing
import WireFormats

@Test func unusableKeysAreSkippedAndTheRestKept() throws {
    let good = String(decoding: try SharedKeys.p256.publicJWKJSON(), as: UTF8.self)
    let entries = [
        good,
        #"{"kty":"RSA","use":"enc","kid":"enc-1","n":"AQAB","e":"AQAB"}"#,
        #"{"kty":"oct","kid":"hmac","k":"c2VjcmV0"}"#,
        #"{"kty":"OKP","crv":"Ed448","kid":"ed448","x":"AAAA"}"#,
        #"{"kty":"OKP","crv":"X25519","kid":"ecdh","x":"AAAA"}"#,
        #"{"kty":"EC","crv":"P-256","kid":"off-curve","x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","y":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE"}"#,
        #"{"kty":"EC","crv":"P-521","kid":"p521","x":"AA","y":"AA"}"#,
        #"{"kty":"EC","crv":"P-256","kid":"short","x":"AAAA","y":"AAAA"}"#,
        #"{"kty":"RSA","kid":"no-n","e":"AQAB"}"#,
        #"{"kty":"RSA","kid":"padded","n":"AQAB==","e":"AQAB"}"#,
        #"{"kty":"RSA","kid":"sign-only","key_ops":["sign"],"n":"AQAB","e":"AQAB"}"#,
        #"{"kty":"RSA","kid":"oaep","alg":"RSA-OAEP","n":"AQAB","e":"AQAB"}"#,
        #"{"kid":"no-kty"}"#,
        "42",
        #"{"kty":7}"#,
    ]
    let set = try JWKSet(json: Array("{\"keys\":[\(entries.joined(separator: ","))]}".utf8))
    #expect(set.keys.map(\.kid) == ["ec-256"])
    #expect(set.skipped.count == entries.count - 1)
    #expect(set.skipped.contains("unusable JWK: key 'enc-1' is for use 'enc', not signatures"))
    #expect(set.skipped.contains("unusable JWK: key type 'oct' is not supported (RSA, EC, OKP)"))
    #expect(set.skipped.contains("unusable JWK: OKP curve 'Ed448' is not supported (Ed25519)"))
    #expect(set.skipped.contains("unusable JWK: EC curve 'P-521' is not supported (P-256, P-384)"))
    #expect(set.skipped.contains("unusable JWK: key 'sign-only' does not allow the 'verify' operation"))
    #expect(set.skipped.contains { $0.hasPrefix("unusable JWK: P-256 key refused by OpenSSL: ") })
    // The surviving key still verifies.
    let jws = try JWSCompact.parse(SharedKeys.p256.sign(payload: Array("{}".utf8)))
    #expect(try set.verify(jws) == .es256)
}

@Test func offCurvePointsCarryOpenSSLsReason() throws {
    let json =
        #"{"kty":"EC","crv":"P-256","x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","y":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAE"}"#
    do {
        _ = try JWK(json: Array(json.utf8))
        Issue.record("an off-curve point was accepted")
    } catch {
        guard case .invalidKey(let why) = error else {
            Issue.record("wrong error \(error)")
            return
        }
        #expect(why.contains("error:"), "OpenSSL's error string should travel with the error: \(why)")
    }
}

@Test(arguments: ["[]", "{}", #"{"keys":{}}"#, #"{"keys":"x"}"#, "", "nope"])
func documentsWithoutAKeysArrayAreMalformed(json: String) {
    #expect(throws: JWSError.malformed("the JWKS is not a JSON object with a \"keys\" array")) {
        try JWKSet(json: Array(json.utf8))
    }
}

@Test func anEmptyKeySetMatchesNothing() throws {
    let set = try JWKSet(json: Array(#"{"keys":[]}"#.utf8))
    #expect(set.keys.isEmpty)
    #expect(throws: JWSError.noMatchingKey(kid: "ec-256")) {
        try set.verify(JWSCompact.parse(SharedKeys.p256.sign(payload: [])))
    }
}

@Test func rsaExponentsAreChecked() throws {
    let n = try #require(SharedKeys.rsa.publicJWK()["n"])
    for e in ["AQ", "Ag", "AAAB", "AQAAAAAAAAAB"] {  // 1, 2, 1 with leading zeros, 72 bits
        let json = "{\"kty\":\"RSA\",\"n\":\"\(n)\",\"e\":\"\(e)\"}"
        #expect(throws: JWSError.invalidKey("RSA exponent must be odd, at least 3 and at most 64 bits")) {
            try JWK(json: Array(json.utf8))
        }
    }
    // A modulus with a leading zero byte (some encoders add one) is the same key.
    let padded = Base64URL.encode([0] + (try Base64URL.decode(n)))
    let key = try JWK(json: Array("{\"kty\":\"RSA\",\"kid\":\"rsa-1\",\"n\":\"\(padded)\",\"e\":\"AQAB\"}".utf8))
    try key.verify(JWSCompact.parse(SharedKeys.rsa.sign(payload: [1])), algorithm: .rs256)
}
