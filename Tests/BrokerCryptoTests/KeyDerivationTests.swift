import BrokerCrypto
import Testing

/// RFC 7914 §12. The fourth vector (N=2^20, 1 GiB) is left out: it exceeds the vault's memory cap.
@Test(arguments: [
    (
        "", "", UInt64(16), UInt32(1), UInt32(1),
        """
        77 d6 57 62 38 65 7b 20 3b 19 ca 42 c1 8a 04 97 f1 6b 48 44 e3 07 4a e8 df df fa 3f ed e2 14 42
        fc d0 06 9d ed 09 48 f8 32 6a 75 3a 0f c8 1f 17 e8 d3 e0 fb 2e 0d 36 28 cf 35 e2 0c 38 d1 89 06
        """
    ),
    (
        "password", "NaCl", 1024, 8, 16,
        """
        fd ba be 1c 9d 34 72 00 78 56 e7 19 0d 01 e9 fe 7c 6a d7 cb c8 23 78 30 e7 73 76 63 4b 37 31 62
        2e af 30 d9 2e 22 a3 88 6f f1 09 27 9d 98 30 da c7 27 af b9 4a 83 ee 6d 83 60 cb df a2 cc 06 40
        """
    ),
    (
        "pleaseletmein", "SodiumChloride", 16384, 8, 1,
        """
        70 23 bd cb 3a fd 73 48 46 1c 06 cd 81 fd 38 eb fd a8 fb ba 90 4f 8e 3e a9 b5 43 f6 54 5d a1 f2
        d5 43 29 55 61 3f 0f cf 62 d4 97 05 24 2a 9a f9 e6 1e 85 dc 0d 65 1e 40 df cf 01 7b 45 57 58 87
        """
    ),
])
func scryptRFC7914Vectors(password: String, salt: String, n: UInt64, r: UInt32, p: UInt32, expected: String) throws {
    let derived = try KeyDerivation.scrypt(
        password: Secret(password), salt: Array(salt.utf8),
        parameters: .init(n: n, r: r, p: p), length: 64)
    #expect(derived.revealBytes() == hex(expected))
}

@Test func scryptRejectsBadParameters() {
    for bad in [
        KeyDerivation.ScryptParameters(n: 1000, r: 8, p: 1),  // not a power of two
        KeyDerivation.ScryptParameters(n: 1, r: 8, p: 1),
        KeyDerivation.ScryptParameters(n: 16, r: 0, p: 1),
        KeyDerivation.ScryptParameters(n: 1 << 22, r: 8, p: 1),  // 4 GiB
    ] {
        #expect(throws: CryptoError.self) {
            try KeyDerivation.scrypt(password: Secret("x"), salt: [1], parameters: bad, length: 32)
        }
    }
    #expect(throws: CryptoError.self) {
        try KeyDerivation.scrypt(password: Secret("x"), salt: [1], parameters: .init(n: 16, r: 1, p: 1), length: 0)
    }
}

/// RFC 5869 Appendix A, test cases 1, 2 and 3 (SHA-256).
@Test func hkdfRFC5869Vectors() throws {
    let case1 = try KeyDerivation.hkdfSHA256(
        inputKeyMaterial: Secret([UInt8](repeating: 0x0b, count: 22)),
        salt: hex("000102030405060708090a0b0c"), info: hex("f0f1f2f3f4f5f6f7f8f9"), length: 42)
    #expect(
        case1.revealBytes()
            == hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))

    let case2 = try KeyDerivation.hkdfSHA256(
        inputKeyMaterial: Secret(Array(0x00...0x4f) as [UInt8]),
        salt: Array(0x60...0xaf) as [UInt8], info: Array(0xb0...0xff) as [UInt8], length: 82)
    #expect(
        case2.revealBytes()
            == hex(
                """
                b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09
                da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87
                """))

    let case3 = try KeyDerivation.hkdfSHA256(
        inputKeyMaterial: Secret([UInt8](repeating: 0x0b, count: 22)), salt: [], info: [], length: 42)
    #expect(
        case3.revealBytes()
            == hex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"))
}

@Test func hkdfRejectsOverlongOutput() {
    #expect(throws: CryptoError.self) {
        try KeyDerivation.hkdfSHA256(inputKeyMaterial: Secret("k"), salt: [], info: [], length: 255 * 32 + 1)
    }
}
