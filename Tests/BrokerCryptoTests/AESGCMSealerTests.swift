import BrokerCrypto
import Testing

/// `AESGCMSealer` keeps one cipher context for many seals: each seal must be exactly a fresh
/// context's — the known answers, whatever the seals before it were — and every seal draws its own nonce.
@Suite struct AESGCMSealerTests {
    @Test(arguments: GCMVector.all)
    func knownAnswersSealWithOneContext(vector: GCMVector) throws {
        let sealer = try AESGCMSealer(key: SymmetricKey(bytes: vector.key))
        let expected = [AESGCM.envelopeVersion] + vector.nonce + vector.ciphertext + vector.tag
        // After a seal of something else: each seal starts from the state the one before left.
        _ = try sealer.seal(ascii("something longer than one block, with its own AAD"), associatedData: ascii("other"))
        #expect(try sealer.seal(vector.plaintext, associatedData: vector.aad, nonce: vector.nonce) == expected)
        #expect(try sealer.seal(vector.plaintext, associatedData: vector.aad, nonce: vector.nonce) == expected)
    }

    @Test func manyValuesInARowOpenWithAFreshContext() throws {
        let key = try SymmetricKey.generate()
        let sealer = try AESGCMSealer(key: key)
        var nonces: Set<[UInt8]> = []
        for length in [0, 1, 15, 16, 17, 64, 745, 4096] {
            for field in ["access_token", "refresh_token", "id_token", ""] {
                let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ length) }
                let aad = ascii("authbroker/v1/\(length)/\(field)")
                let sealed = try plaintext.withUnsafeBytes { try sealer.seal($0, associatedData: aad) }
                #expect(sealed.count == plaintext.count + AESGCM.overhead)
                #expect(try AESGCM.open(sealed, key: key, associatedData: aad) == plaintext)
                nonces.insert(Array(sealed[1...AESGCM.nonceByteCount]))
            }
        }
        #expect(nonces.count == 32)
    }

    @Test func aNonceOtherThan96BitsIsRefusedAndTheNextSealIsUnaffected() throws {
        let vector = GCMVector.all[3]
        let sealer = try AESGCMSealer(key: SymmetricKey(bytes: vector.key))
        #expect(throws: CryptoError.invalidParameters("GCM nonce must be 12 bytes")) {
            try sealer.seal([1], associatedData: [], nonce: [UInt8](repeating: 0xca, count: 8))
        }
        #expect(
            try sealer.seal(vector.plaintext, associatedData: vector.aad, nonce: vector.nonce)
                == [AESGCM.envelopeVersion] + vector.nonce + vector.ciphertext + vector.tag)
    }
}
