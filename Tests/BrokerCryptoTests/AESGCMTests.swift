import BrokerCrypto
import Testing

/// McGrew–Viega GCM test cases 13–16 (the AES-256 cases of the GCM specification, also in
/// NIST CAVP gcmEncryptExtIV256). Cases 17 and 18 use 8- and 60-byte IVs, which the envelope's
/// fixed 96-bit nonce cannot carry: `nonceOtherThan96BitsIsRefused` covers them.
struct GCMVector: Sendable, CustomTestStringConvertible {
    let name: String
    let key: [UInt8]
    let nonce: [UInt8]
    let plaintext: [UInt8]
    let aad: [UInt8]
    let ciphertext: [UInt8]
    let tag: [UInt8]
    var testDescription: String { name }

    static let key15 = hex("feffe9928665731c6d6a8f9467308308 feffe9928665731c6d6a8f9467308308")
    static let nonce15 = hex("cafebabefacedbaddecaf888")
    static let plaintext15 = hex(
        """
        d9313225f88406e5a55909c5aff5269a 86a7a9531534f7da2e4c303d8a318a72
        1c3c0c95956809532fcf0e2449a6b525 b16aedf5aa0de657ba637b391aafd255
        """)
    static let ciphertext15 = hex(
        """
        522dc1f099567d07f47f37a32a84427d 643a8cdcbfe5c0c97598a2bd2555d1aa
        8cb08e48590dbb3da7b08b1056828838 c5f61e6393ba7a0abcc9f662898015ad
        """)

    static let all = [
        GCMVector(
            name: "13", key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 12),
            plaintext: [], aad: [], ciphertext: [], tag: hex("530f8afbc74536b9a963b4f1c4cb738b")),
        GCMVector(
            name: "14", key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 12),
            plaintext: [UInt8](repeating: 0, count: 16), aad: [],
            ciphertext: hex("cea7403d4d606b6e074ec5d3baf39d18"), tag: hex("d0d1c8a799996bf0265b98b5d48ab919")),
        GCMVector(
            name: "15", key: key15, nonce: nonce15, plaintext: plaintext15, aad: [],
            ciphertext: ciphertext15, tag: hex("b094dac5d93471bdec1a502270e3cc6c")),
        GCMVector(
            name: "16 (with AAD)", key: key15, nonce: nonce15, plaintext: Array(plaintext15.prefix(60)),
            aad: hex("feedfacedeadbeeffeedfacedeadbeefabaddad2"),
            ciphertext: Array(ciphertext15.prefix(60)), tag: hex("76fc6ece0f4e1768cddf8853bb2d551b")),
    ]
}

@Test(arguments: GCMVector.all)
func aes256GCMKnownAnswers(vector: GCMVector) throws {
    let key = try SymmetricKey(bytes: vector.key)
    let sealed = try AESGCM.seal(vector.plaintext, key: key, associatedData: vector.aad, nonce: vector.nonce)
    #expect(sealed == [AESGCM.envelopeVersion] + vector.nonce + vector.ciphertext + vector.tag)
    #expect(try AESGCM.open(sealed, key: key, associatedData: vector.aad) == vector.plaintext)
}

@Test func nonceOtherThan96BitsIsRefused() throws {
    let key = try SymmetricKey(bytes: GCMVector.key15)
    for count in [0, 8, 11, 13, 60] {
        #expect(throws: CryptoError.invalidParameters("GCM nonce must be 12 bytes")) {
            try AESGCM.seal([1], key: key, associatedData: [], nonce: [UInt8](repeating: 0xca, count: count))
        }
    }
}

@Test func sealOpenRoundTripWithAssociatedData() throws {
    let key = try SymmetricKey.generate()
    let aad = ascii("authbroker/v1/1/access_token")
    let sealed = try AESGCM.seal(ascii("hello"), key: key, associatedData: aad)
    #expect(sealed.count == 5 + AESGCM.overhead)
    #expect(try AESGCM.open(sealed, key: key, associatedData: aad) == ascii("hello"))
    #expect(throws: CryptoError.authenticationFailed) {
        try AESGCM.open(sealed, key: key, associatedData: ascii("authbroker/v1/2/access_token"))
    }
    #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(sealed, key: key, associatedData: []) }
}

@Test func roundTripsOfManyLengthsUseFreshNonces() throws {
    let key = try SymmetricKey.generate()
    for length in [0, 1, 15, 16, 17, 255, 4096] {
        let plaintext = try Random.bytes(length)
        let aad = try Random.bytes(length % 40)
        let first = try AESGCM.seal(plaintext, key: key, associatedData: aad)
        let second = try AESGCM.seal(plaintext, key: key, associatedData: aad)
        #expect(first != second, "two seals must use different nonces")
        #expect(try AESGCM.open(first, key: key, associatedData: aad) == plaintext)
        #expect(try AESGCM.open(second, key: key, associatedData: aad) == plaintext)
    }
}

@Test func everyTamperedByteIsDetected() throws {
    let key = try SymmetricKey.generate()
    let aad = ascii("authbroker/v1/7/refresh_token")
    let sealed = try AESGCM.seal(ascii("refresh-token-value"), key: key, associatedData: aad)
    for position in sealed.indices {
        for flip: UInt8 in [0x01, 0x80] {
            var tampered = sealed
            tampered[position] ^= flip
            let expected =
                position == 0
                ? CryptoError.malformedEnvelope("unknown envelope version \(tampered[0])")
                : CryptoError.authenticationFailed
            #expect(throws: expected) { try AESGCM.open(tampered, key: key, associatedData: aad) }
        }
    }
}

@Test func wrongKeyTruncationAndEmptyPlaintext() throws {
    let key = try SymmetricKey.generate()
    let sealed = try AESGCM.seal([], key: key, associatedData: ascii("ctx"))
    #expect(sealed.count == AESGCM.overhead)
    #expect(try AESGCM.open(sealed, key: key, associatedData: ascii("ctx")) == [])
    #expect(throws: CryptoError.authenticationFailed) {
        try AESGCM.open(sealed, key: SymmetricKey.generate(), associatedData: ascii("ctx"))
    }
    #expect(throws: CryptoError.malformedEnvelope("28 bytes is shorter than the 29-byte minimum")) {
        try AESGCM.open(sealed.dropLast(), key: key, associatedData: ascii("ctx"))
    }
    #expect(throws: CryptoError.malformedEnvelope("0 bytes is shorter than the 29-byte minimum")) {
        try AESGCM.open([], key: key, associatedData: ascii("ctx"))
    }
    // Cutting a longer envelope to the minimum length shifts the tag: authentication fails.
    let longer = try AESGCM.seal(ascii("token"), key: key, associatedData: [])
    #expect(throws: CryptoError.authenticationFailed) {
        try AESGCM.open(longer.dropLast(5), key: key, associatedData: [])
    }
}

@Test func unknownEnvelopeVersionsAreRefused() throws {
    let key = try SymmetricKey.generate()
    var sealed = try AESGCM.seal(ascii("x"), key: key, associatedData: [])
    for version: UInt8 in [0, 2, 0xff] {
        sealed[0] = version
        #expect(throws: CryptoError.malformedEnvelope("unknown envelope version \(version)")) {
            try AESGCM.open(sealed, key: key, associatedData: [])
        }
    }
}

@Test func keysMustBe32Bytes() {
    for count in [0, 16, 31, 33] {
        #expect(throws: CryptoError.invalidKeyLength(expected: 32, actual: count)) {
            try SymmetricKey(bytes: [UInt8](repeating: 1, count: count))
        }
    }
}

/// docs/security.md "Envelope": "version byte (`0x01`) ‖ nonce ‖ ciphertext ‖ 128-bit tag" — the
/// stored format's first byte is pinned, not only the constant it comes from.
@Test func theStoredEnvelopeStartsWithVersionOneAndIsNonceCiphertextTag() throws {
    let sealed = try AESGCM.seal(
        ascii("hello"), key: try SymmetricKey.generate(), associatedData: ascii("authbroker/v1/1/access_token"))
    #expect(sealed.first == 0x01)
    #expect(sealed.count == 1 + 12 + 5 + 16)
}
