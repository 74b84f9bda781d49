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
        // One implementation of sealing, `AESGCMSealer`, here for a single value.
        try AESGCMSealer(key: key).seal(plaintext, associatedData: Array(associatedData))
    }

    /// Seals with a caller-chosen nonce. Only for known-answer tests: reusing a nonce under one key
    /// destroys GCM's confidentiality and authenticity.
    public static func seal(
        _ plaintext: some Collection<UInt8>, key: SymmetricKey, associatedData: some Collection<UInt8>,
        nonce: [UInt8]
    ) throws -> [UInt8] {
        try AESGCMSealer(key: key).seal(plaintext, associatedData: Array(associatedData), nonce: nonce)
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

extension AESGCM {
    /// A cipher context with AES-256-GCM and `key` set once, for many seals (`AESGCMSealer`) or
    /// opens (`AESGCMOpener`); each sets only its nonce. The caller owns it (`EVP_CIPHER_CTX_free`).
    static func makeContext(key: SymmetricKey, sealing: Bool) throws(CryptoError) -> OpaquePointer {
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError.fromOpenSSL("EVP_CIPHER_CTX_new") }
        let ok = key.secret.withUnsafeBytes { keyBytes in
            EVP_CipherInit_ex2(
                context, EVP_aes_256_gcm(), keyBytes.bindMemory(to: UInt8.self).baseAddress, nil, sealing ? 1 : 0, nil)
        }
        guard ok == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw CryptoError.fromOpenSSL("EVP_CipherInit_ex2")
        }
        return context
    }
}
