import Testing
import WireFormats

@testable import BrokerCrypto

/// P-256 DPoP keys: generation, ES256 signing checked by the JWS verifier, PKCS#8 round trips.
@Suite struct ECSigningKeyTests {
    /// `openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 | openssl pkcs8 -topk8 -nocrypt -outform DER`,
    /// with its public coordinates as `openssl pkey -pubout` printed them (base64url).
    static let opensslP256 = hex(
        "308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b02010104209d5b7b4d1a669590eaceecfb37d1147a"
            + "26026ff095ee087a820eed5bfa6b2395a144034200042cd0fb3b4257a513fcf8fa825891f925b22b8d639438e100802e8aef"
            + "1c9634d74b74ff3c78caeebe9b1065710b6d3d164c0e64b4dc80ed85b49eab09c65a86a8")
    static let opensslP256X = "LND7O0JXpRP8-PqCWJH5JbIrjWOUOOEAgC6K7xyWNNc"
    static let opensslP256Y = "S3T_PHjK7r6bEGVxC209FkwOZLTcgO2FtJ6rCcZahqg"
    /// The same tools' P-384 key: a valid PKCS#8 document of the wrong curve.
    static let opensslP384 = hex(
        "3081b6020100301006072a8648ce3d020106052b8104002204819e30819b020101043074544e823d7be7cc4b2dc7625cd5f93363"
            + "3f5dcc2efd05a53f5e7afc02a50e0e84d4461473ad6e3f370f92f4a8c7fa47a1640362000465c2ed5369f74e1f080e46a443"
            + "78cd32e5fe3c2f687e9f95dd6c6aa02182cb1cd22a120630e1a3de0da082763723d07c6bd9b9f7a966eb83681613f33436db"
            + "572b7f5043eb2a9264ed192ceb55fb842f238141e1535713a82c0bc6f6c5594471")

    /// A compact JWS signed by `key` over `payload`, as a DPoP proof is assembled.
    static func jws(_ key: ECSigningKey, payload: String) throws -> String {
        let input = Base64URL.encode(ascii(#"{"alg":"ES256"}"#)) + "." + Base64URL.encode(ascii(payload))
        return input + "." + Base64URL.encode(try key.sign(ascii(input)))
    }

    @Test func signaturesAreRawSixtyFourBytesAndVerifyWithThePublicJWK() throws {
        let key = try ECSigningKey.generate()
        let verifier = try JWK(json: ascii(key.publicJWK.json))
        #expect(verifier.kty == "EC" && verifier.crv == "P-256")
        for index in 0..<8 {
            let compact = try Self.jws(key, payload: #"{"n":\#(index)}"#)
            let parsed = try JWSCompact.parse(compact)
            #expect(parsed.signature.count == 64)
            try verifier.verify(parsed, algorithm: .es256)
        }
    }

    @Test func aTamperedPayloadOrAnotherKeyIsRefused() throws {
        let key = try ECSigningKey.generate()
        let parts = try Self.jws(key, payload: #"{"htm":"GET"}"#).split(separator: ".").map(String.init)
        let tampered = [parts[0], Base64URL.encode(ascii(#"{"htm":"PUT"}"#)), parts[2]].joined(separator: ".")
        #expect(throws: JWSError.badSignature) {
            try JWK(json: ascii(key.publicJWK.json)).verify(JWSCompact.parse(tampered), algorithm: .es256)
        }
        let other = try ECSigningKey.generate()
        #expect(throws: JWSError.badSignature) {
            try JWK(json: ascii(other.publicJWK.json)).verify(JWSCompact.parse(parts.joined(separator: ".")), algorithm: .es256)
        }
    }

    @Test func shortIntegersArePaddedToFixedWidth() throws {
        // An r with a leading zero byte is 31 bytes in DER; an s with its top bit set gets a 0x00 sign byte.
        let r = [UInt8](repeating: 0x11, count: 31)
        let s = [0x80] + [UInt8](repeating: 0x22, count: 31)
        let der = DER.sequence(DER.unsignedInteger([0] + r), DER.unsignedInteger(s))
        #expect(der.count == 2 + 2 + 31 + 2 + 33)
        #expect(try ECSigningKey.rawSignature(der[...]) == [0] + r + s)
    }

    @Test func anExportedKeyImportsWithTheSameThumbprintAndSigns() throws {
        let key = try ECSigningKey.generate()
        let exported = try key.exportPKCS8()
        let restored = try ECSigningKey(pkcs8: exported)
        #expect(restored.publicJWK == key.publicJWK)
        #expect(restored.publicJWK.thumbprint == key.publicJWK.thumbprint)
        try JWK(json: ascii(key.publicJWK.json)).verify(JWSCompact.parse(Self.jws(restored, payload: "{}")), algorithm: .es256)
        #expect(try restored.exportPKCS8() == exported)
    }

    @Test func anOpenSSLKeyImportsWithTheCoordinatesOpenSSLPrinted() throws {
        let key = try ECSigningKey(pkcs8: Secret(Self.opensslP256))
        #expect(key.publicJWK.x == Self.opensslP256X && key.publicJWK.y == Self.opensslP256Y)
    }

    @Test func importRefusesOtherCurvesGarbageAndOversizedInput() throws {
        #expect(throws: CryptoError.invalidParameters("the DPoP key is not a P-256 EC key")) {
            try ECSigningKey(pkcs8: Secret(Self.opensslP384))
        }
        #expect(throws: CryptoError.self) { try ECSigningKey(pkcs8: Secret(Self.opensslP256.dropLast(3))) }
        #expect(throws: CryptoError.self) { try ECSigningKey(pkcs8: Secret(ascii("not a key"))) }
        let huge = Secret([UInt8](repeating: 0x30, count: ECSigningKey.maximumPKCS8Length + 1))
        #expect(throws: CryptoError.invalidParameters("a P-256 PKCS#8 key is under 1024 bytes, got 1025")) {
            try ECSigningKey(pkcs8: huge)
        }
    }

    @Test func thePrivateKeyAppearsInNoDescription() throws {
        let key = try ECSigningKey.generate()
        let scalar = Array(try key.exportPKCS8().revealBytes()[36..<68])  // PKCS#8 → ECPrivateKey's 32-byte d
        var dumped = ""
        dump(key, to: &dumped)
        for text in [String(describing: key), String(reflecting: key), dumped, "\(key)"] {
            #expect(text.contains("redacted"))
            #expect(!text.contains(Base64URL.encode(scalar)) && !text.lowercased().contains(hexString(scalar)))
        }
    }

    private func hexString(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
