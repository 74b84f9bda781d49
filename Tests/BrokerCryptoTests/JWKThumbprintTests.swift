import BrokerCrypto
import Testing

/// RFC 7638 thumbprints, against the RFC's own example and RFC 9449's.
@Suite struct JWKThumbprintTests {
    /// RFC 7638 §3.1: the RSA key of RFC 7517 Appendix A.1 and its thumbprint.
    static let rfc7638N =
        "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMst"
        + "n64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5h"
        + "ajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
    static let rfc7638Thumbprint = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
    /// RFC 9449 §4.2's example proof key, whose `jkt` its §6.1 example access token carries.
    static let rfc9449X = "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs"
    static let rfc9449Y = "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"
    static let rfc9449JKT = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"

    @Test func rfc7638RSAExample() throws {
        #expect(try JWKThumbprint.rsa(n: Self.rfc7638N, e: "AQAB") == Self.rfc7638Thumbprint)
        // The RFC's full JWK: other members, another order and whitespace do not change it.
        let jwk = #"{ "kty": "RSA", "alg": "RS256", "kid": "2011-04-29", "n": "\#(Self.rfc7638N)", "e": "AQAB" }"#
        #expect(try JWKThumbprint.of(jwkJSON: ascii(jwk)) == Self.rfc7638Thumbprint)
    }

    @Test func rfc9449ECExample() throws {
        #expect(try JWKThumbprint.ec(crv: "P-256", x: Self.rfc9449X, y: Self.rfc9449Y) == Self.rfc9449JKT)
        let jwk = #"{"y":"\#(Self.rfc9449Y)","x":"\#(Self.rfc9449X)","kty":"EC","crv":"P-256","use":"sig"}"#
        #expect(try JWKThumbprint.of(jwkJSON: ascii(jwk)) == Self.rfc9449JKT)
    }

    @Test func aGeneratedKeysThumbprintIsItsJWKsThumbprint() throws {
        let key = try ECSigningKey.generate().publicJWK
        #expect(key.thumbprint == (try JWKThumbprint.ec(crv: key.crv, x: key.x, y: key.y)))
        #expect(key.thumbprint == (try JWKThumbprint.of(jwkJSON: ascii(key.json))))
        #expect(key.json == #"{"crv":"P-256","kty":"EC","x":"\#(key.x)","y":"\#(key.y)"}"#)
    }

    @Test func membersThatWouldNeedEscapingOrAreMissingAreRefused() {
        #expect(throws: JWSError.self) { try JWKThumbprint.ec(crv: "P-256", x: #"a"b"#, y: "c") }
        #expect(throws: JWSError.self) { try JWKThumbprint.rsa(n: "", e: "AQAB") }
        #expect(throws: JWSError.self) { try JWKThumbprint.of(jwkJSON: ascii(#"{"kty":"EC","crv":"P-256","x":"a"}"#)) }
        #expect(throws: JWSError.self) { try JWKThumbprint.of(jwkJSON: ascii(#"{"kty":"oct","k":"c2VjcmV0"}"#)) }
        #expect(throws: JWSError.self) { try JWKThumbprint.of(jwkJSON: ascii("[]")) }
    }
}
