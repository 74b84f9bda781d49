import COpenSSL

/// AES-256-GCM authenticated encryption in a versioned envelope.
///
/// Envelope layout (all sealed values in the vault use it):
///
///     version (1 byte, 0x01) | nonce (12 bytes) | ciphertext (n bytes) | tag (16 bytes)
///
/// Nonces are 96 random bits per seal. With one key the birthday bound for a nonce collision
/// is about 2^32 seals (NIST SP 800-38D §8.3) — far beyond what a token store writes — and
/// `authctl rekey` resets the count.
public enum AESGCM {
    public static let envelopeVersion: UInt8 = 1
    public static let nonceByteCount = 12
    public static let tagByteCount = 16
    public static let overhead = 1 + nonceByteCount + tagByteCount

    /// Seals `plaintext` under `key`, binding `associatedData` (which is authenticated, not stored).
    public static func seal(_ plaintext: some Collection<UInt8>, key: SymmetricKey, associatedData: some Collection<UInt8>)
        throws -> [UInt8]
    {
        try seal(plaintext, key: key, associatedData: associatedData, nonce: Random.bytes(nonceByteCount))
    }

    /// Seals with a caller-chosen nonce. Only for known-answer tests: reusing a nonce under one key
    /// destroys GCM's confidentiality and authenticity.
    public static func seal(
        _ plaintext: some Collection<UInt8>, key: SymmetricKey, associatedData: some Collection<UInt8>,
        nonce: [UInt8]
    ) throws -> [UInt8] {
        guard nonce.count == nonceByteCount else {
            throw CryptoError.invalidParameters("GCM nonce must be \(nonceByteCount) bytes")
        }
        let (ciphertext, tag) = try GCMSealContext(key: key, nonce: nonce)
            .run(Array(plaintext), associatedData: Array(associatedData))
        return [envelopeVersion] + nonce + ciphertext + tag
    }

    /// Opens an envelope made by `seal`. Throws `authenticationFailed` for a wrong key, wrong
    /// associated data or any changed byte; `malformedEnvelope` for a short or unknown-version input.
    public static func open(_ envelope: some Collection<UInt8>, key: SymmetricKey, associatedData: some Collection<UInt8>)
        throws -> [UInt8]
    {
        // One implementation of opening, `AESGCMOpener`, here for a single envelope.
        try AESGCMOpener(key: key).open(Array(envelope), associatedData: Array(associatedData))
    }
}

/// Owns one `EVP_CIPHER_CTX` for a single GCM encryption (opening is `AESGCMOpener`'s).
private final class GCMSealContext {
    private let context: OpaquePointer

    init(key: SymmetricKey, nonce: [UInt8]) throws {
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError.fromOpenSSL("EVP_CIPHER_CTX_new") }
        self.context = context
        let ok = key.secret.withUnsafeBytes { keyBytes in
            EVP_CipherInit_ex2(context, EVP_aes_256_gcm(), keyBytes.bindMemory(to: UInt8.self).baseAddress, nonce, 1, nil)
        }
        guard ok == 1 else { throw CryptoError.fromOpenSSL("EVP_CipherInit_ex2") }
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// The ciphertext and its tag.
    func run(_ input: [UInt8], associatedData: [UInt8]) throws -> (output: [UInt8], tag: [UInt8]) {
        // OpenSSL takes int lengths: Int32(count) would trap on a 2 GiB input instead of throwing.
        guard input.count <= Int(Int32.max) - AESGCM.tagByteCount, associatedData.count <= Int(Int32.max) else {
            throw CryptoError.invalidParameters("GCM input or associated data of 2 GiB or more")
        }
        var length: Int32 = 0
        if !associatedData.isEmpty {
            guard EVP_CipherUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else {
                throw CryptoError.fromOpenSSL("EVP_CipherUpdate(aad)")
            }
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        if !input.isEmpty {
            guard EVP_CipherUpdate(context, &output, &written, input, Int32(input.count)) == 1 else {
                throw CryptoError.fromOpenSSL("EVP_CipherUpdate")
            }
        }
        var final: Int32 = 0
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            EVP_CipherFinal_ex(context, buffer.baseAddress! + Int(written), &final)
        }
        guard finished == 1 else { throw CryptoError.fromOpenSSL("EVP_CipherFinal_ex") }
        output.removeLast(output.count - Int(written + final))
        var tag = [UInt8](repeating: 0, count: AESGCM.tagByteCount)
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(AESGCM.tagByteCount), &tag) == 1 else {
            throw CryptoError.fromOpenSSL("EVP_CTRL_GCM_GET_TAG")
        }
        return (output, tag)
    }
}
