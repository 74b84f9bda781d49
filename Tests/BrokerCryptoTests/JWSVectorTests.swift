import BrokerCrypto
import Testing
import WireFormats

/// RFC 7515 Appendix A.2 / A.3 and RFC 8037 Appendix A.4 / A.5: published tokens and their keys.
enum RFCVectors {
    static let rs256Key = """
        {"kty":"RSA","n":"ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt\
        0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBd\
        QOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs\
        91kzk2PAcDTW9gb54h4FRWyuXpoQ","e":"AQAB"}
        """
    static let rs256Token =
        "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
        + "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZ"
        + "cAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-"
        + "eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
    static let es256Key = """
        {"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",\
        "y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}
        """
    static let es256Token =
        "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
        + "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    static let ed25519Key = #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#
    static let ed25519Token =
        "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc."
        + "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
    /// RFC 7515 A.1's HS256 example: its secret must never count as a key.
    static let hs256Token =
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
        + "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    static func key(_ json: String) throws -> JWK { try JWK(json: Array(json.utf8)) }
}

@Test func rfc7515A2RS256Verifies() throws {
    let jws = try JWSCompact.parse(RFCVectors.rs256Token)
    #expect(jws.header == JOSEHeader(alg: "RS256"))
    #expect(String(decoding: jws.payload, as: UTF8.self).hasPrefix("{\"iss\":\"joe\",\r\n"))
    try RFCVectors.key(RFCVectors.rs256Key).verify(jws, algorithm: .rs256)
}

@Test func rfc7515A3ES256Verifies() throws {
    let jws = try JWSCompact.parse(RFCVectors.es256Token)
    #expect(jws.signature.count == 64)
    try RFCVectors.key(RFCVectors.es256Key).verify(jws, algorithm: .es256)
}

@Test func rfc8037A4A5Ed25519Verifies() throws {
    let jws = try JWSCompact.parse(RFCVectors.ed25519Token)
    #expect(jws.payload == Array("Example of Ed25519 signing".utf8))
    try RFCVectors.key(RFCVectors.ed25519Key).verify(jws, algorithm: .edDSA)
}

@Test func rfcVectorsRefuseEachOthersKeys() throws {
    let rsa = try RFCVectors.key(RFCVectors.rs256Key)
    let ec = try RFCVectors.key(RFCVectors.es256Key)
    let es256 = try JWSCompact.parse(RFCVectors.es256Token)
    #expect(throws: JWSError.invalidKey("key without kid (RSA) cannot verify ES256")) {
        try rsa.verify(es256, algorithm: .es256)
    }
    #expect(!ec.supports(.es384))
    #expect(!ec.supports(.rs256))
    #expect(throws: JWSError.unsupportedAlgorithm("ES256")) { try rsa.verify(es256, algorithm: .rs256) }
}

@Test func rfcVectorWithOneFlippedSignatureBitFails() throws {
    for token in [RFCVectors.rs256Token, RFCVectors.es256Token, RFCVectors.ed25519Token] {
        let jws = try JWSCompact.parse(token)
        let algorithm = try #require(JWSAlgorithm(rawValue: jws.header.alg))
        var signature = jws.signature
        signature[signature.count / 2] ^= 0x01
        let parts = token.split(separator: ".")
        let tampered = try JWSCompact.parse("\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))")
        let set = try JWKSet(
            json: Array(
                "{\"keys\":[\(RFCVectors.rs256Key),\(RFCVectors.es256Key),\(RFCVectors.ed25519Key)]}".utf8))
        #expect(set.keys.count == 3)
        #expect(throws: JWSError.badSignature) { try set.verify(tampered) }
        #expect(try set.verify(jws) == algorithm)
    }
}

@Test func hmacAndNoneAreNeverAccepted() throws {
    let jws = try JWSCompact.parse(RFCVectors.hs256Token)
    #expect(jws.header.alg == "HS256")
    #expect(jws.header.typ == "JWT")
    #expect(JWSAlgorithm(rawValue: "HS256") == nil)
    #expect(JWSAlgorithm(rawValue: "none") == nil)
    #expect(JWSAlgorithm(rawValue: "rs256") == nil)
    let set = try JWKSet(json: Array("{\"keys\":[\(RFCVectors.rs256Key)]}".utf8))
    #expect(throws: JWSError.unsupportedAlgorithm("HS256")) { try set.verify(jws) }
}
