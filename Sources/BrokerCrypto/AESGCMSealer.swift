import COpenSSL

/// Seals `AESGCM` envelopes under one key with one cipher context: the one implementation of
/// sealing (`AESGCM.seal` makes one for a single value). Like `AESGCMOpener`, the cipher and key
/// are set once; each seal only sets a fresh nonce, which starts a new GCM operation. A token save
/// seals three or four fields inside the commit window, where a context each (allocate, fetch the
/// cipher by name, expand the key) was most of their cost
/// (docs/BENCHMARKS-archive.md, "Forced refresh: the commit's mechanics").
///
/// Not Sendable: the context is mutable state; one owner (the vault) uses it.
public final class AESGCMSealer {
    private let context: OpaquePointer

    public init(key: SymmetricKey) throws(CryptoError) {
        context = try AESGCM.makeContext(key: key, sealing: true)
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Seals `plaintext` with 96 fresh random bits of nonce, binding `associatedData`.
    public func seal(_ plaintext: some Collection<UInt8>, associatedData: [UInt8]) throws -> [UInt8] {
        try seal(plaintext, associatedData: associatedData, nonce: Random.bytes(AESGCM.nonceByteCount))
    }

    /// Seals with a caller-chosen nonce. Only for known-answer tests: reusing a nonce under one key
    /// destroys GCM's confidentiality and authenticity.
    public func seal(_ plaintext: some Collection<UInt8>, associatedData: [UInt8], nonce: [UInt8]) throws(CryptoError)
        -> [UInt8]
    {
        guard nonce.count == AESGCM.nonceByteCount else {
            throw .invalidParameters("GCM nonce must be \(AESGCM.nonceByteCount) bytes")
        }
        // OpenSSL takes int lengths: Int32(count) would trap on a 2 GiB input instead of throwing.
        guard plaintext.count <= Int(Int32.max) - AESGCM.overhead, associatedData.count <= Int(Int32.max) else {
            throw .invalidParameters("GCM input or associated data of 2 GiB or more")
        }
        // The envelope is written in place: version, nonce, ciphertext, tag.
        var envelope = [UInt8](repeating: 0, count: AESGCM.overhead + plaintext.count)
        envelope[0] = AESGCM.envelopeVersion
        envelope.replaceSubrange(1...AESGCM.nonceByteCount, with: nonce)
        // Secrets arrive as raw buffers (`Secret.withUnsafeBytes`): read in place, never copied.
        let encrypted = { (input: UnsafeBufferPointer<UInt8>) in
            envelope.withUnsafeMutableBufferPointer { out in
                self.encrypt(
                    input, associatedData: associatedData, nonce: nonce, into: out.baseAddress! + 1 + AESGCM.nonceByteCount)
            }
        }
        let sealed = plaintext.withContiguousStorageIfAvailable(encrypted) ?? Array(plaintext).withUnsafeBufferPointer(encrypted)
        guard sealed else { throw CryptoError.fromOpenSSL("AES-256-GCM seal") }
        return envelope
    }

    /// Nonce, associated data, plaintext, tag (written after the ciphertext): false when a step fails.
    private func encrypt(
        _ plaintext: UnsafeBufferPointer<UInt8>, associatedData: [UInt8], nonce: [UInt8], into output: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        // Nil cipher and key keep the ones set in init; a new nonce starts a new GCM operation.
        guard EVP_CipherInit_ex2(context, nil, nil, nonce, 1, nil) == 1 else { return false }
        var length: Int32 = 0
        if !associatedData.isEmpty {
            guard EVP_CipherUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else { return false }
        }
        var written: Int32 = 0
        if !plaintext.isEmpty {
            guard EVP_CipherUpdate(context, output, &written, plaintext.baseAddress, Int32(plaintext.count)) == 1 else {
                return false
            }
        }
        var final: Int32 = 0
        // GCM is a stream mode: everything was written by the updates, `final` only computes the tag.
        guard EVP_CipherFinal_ex(context, output + Int(written), &final) == 1, Int(written + final) == plaintext.count else {
            return false
        }
        let tag = output + plaintext.count
        return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(AESGCM.tagByteCount), tag) == 1
    }
}
