import BrokerCrypto
import Testing

/// `AESGCMOpener` keeps one cipher context for many opens: each open must be exactly
/// a fresh context's (`AESGCM.open`) — same plaintext, same errors — whatever the opens before it were, failed ones included.
@Suite struct AESGCMOpenerTests {
    @Test(arguments: GCMVector.all)
    func knownAnswersOpenWithOneContext(vector: GCMVector) throws {
        let opener = try AESGCMOpener(key: SymmetricKey(bytes: vector.key))
        let envelope = [AESGCM.envelopeVersion] + vector.nonce + vector.ciphertext + vector.tag
        // Twice in a row: the second open starts from the state the first one left.
        #expect(try opener.open(envelope, associatedData: vector.aad) == vector.plaintext)
        #expect(try opener.open(envelope, associatedData: vector.aad) == vector.plaintext)
    }

    @Test func manyEnvelopesInARowOpenAsAESGCMOpenOpensThem() throws {
        let key = try SymmetricKey.generate()
        let opener = try AESGCMOpener(key: key)
        for length in [0, 1, 15, 16, 17, 64, 745, 4096] {
            for field in ["access_token", "refresh_token", "id_token", ""] {
                let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ length) }
                let aad = ascii("authbroker/v1/\(length)/\(field)")
                let sealed = try AESGCM.seal(plaintext, key: key, associatedData: aad)
                #expect(try opener.open(sealed, associatedData: aad) == plaintext)
                #expect(try AESGCM.open(sealed, key: key, associatedData: aad) == plaintext)
            }
        }
    }

    @Test func aFailedOpenLeavesTheNextOneUnaffected() throws {
        let key = try SymmetricKey.generate()
        let opener = try AESGCMOpener(key: key)
        let aad = ascii("authbroker/v1/7/refresh_token")
        let sealed = try AESGCM.seal(ascii("refresh-token-value"), key: key, associatedData: aad)
        for position in sealed.indices {
            var tampered = sealed
            tampered[position] ^= 0x01
            let expected =
                position == 0
                ? CryptoError.malformedEnvelope("unknown envelope version \(tampered[0])")
                : CryptoError.authenticationFailed
            #expect(throws: expected) { try opener.open(tampered, associatedData: aad) }
            #expect(try opener.open(sealed, associatedData: aad) == ascii("refresh-token-value"))
        }
        #expect(throws: CryptoError.authenticationFailed) { try opener.open(sealed, associatedData: ascii("other")) }
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCMOpener(key: SymmetricKey.generate()).open(sealed, associatedData: aad)
        }
        #expect(try opener.open(sealed, associatedData: aad) == ascii("refresh-token-value"))
    }

    @Test func shortEnvelopesAreRefusedAsAESGCMOpenRefusesThem() throws {
        let key = try SymmetricKey.generate()
        let sealed = try AESGCM.seal([], key: key, associatedData: ascii("ctx"))
        let opener = try AESGCMOpener(key: key)
        #expect(try opener.open(sealed, associatedData: ascii("ctx")) == [])
        #expect(throws: CryptoError.malformedEnvelope("28 bytes is shorter than the 29-byte minimum")) {
            try opener.open(Array(sealed.dropLast()), associatedData: ascii("ctx"))
        }
        #expect(throws: CryptoError.malformedEnvelope("0 bytes is shorter than the 29-byte minimum")) {
            try opener.open([], associatedData: ascii("ctx"))
        }
        let longer = try AESGCM.seal(ascii("token"), key: key, associatedData: [])
        #expect(throws: CryptoError.authenticationFailed) { try opener.open(Array(longer.dropLast(5)), associatedData: []) }
    }
}
