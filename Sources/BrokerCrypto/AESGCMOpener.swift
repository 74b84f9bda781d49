import COpenSSL

/// Opens `AESGCM` envelopes under one key with one cipher context: the one implementation of
/// opening (`AESGCM.open` makes one for a single envelope). A context per open — allocating it,
/// fetching the cipher (OpenSSL 3 looks it up by name each time) and expanding the key — was most
/// of the cost of opening a 64-byte token, and start-up opens three or four values per account
/// (docs/BENCHMARKS-archive.md, "READY=1 with 1,000 accounts"), so the vault keeps one: the cipher and key are
/// set once; each open only sets the nonce, which resets GCM's state.
///
/// Not Sendable: the context is mutable state; one owner (the vault) uses it.
public final class AESGCMOpener {
    private let context: OpaquePointer

    public init(key: SymmetricKey) throws(CryptoError) {
        context = try AESGCM.makeContext(key: key, sealing: false)
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// The plaintext of an envelope made by `AESGCM.seal`: `authenticationFailed` for a wrong key,
    /// wrong associated data or any changed byte; `malformedEnvelope` for a short or unknown-version input.
    public func open(_ envelope: [UInt8], associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
        let overhead = AESGCM.overhead
        guard envelope.count >= overhead else {
            throw .malformedEnvelope("\(envelope.count) bytes is shorter than the \(overhead)-byte minimum")
        }
        guard envelope[0] == AESGCM.envelopeVersion else {
            throw .malformedEnvelope("unknown envelope version \(envelope[0])")
        }
        // OpenSSL takes int lengths: Int32(count) would trap on a 2 GiB input instead of throwing.
        guard envelope.count <= Int(Int32.max), associatedData.count <= Int(Int32.max) else {
            throw .invalidParameters("GCM input or associated data of 2 GiB or more")
        }
        let ciphertextCount = envelope.count - overhead
        var output = [UInt8](repeating: 0, count: ciphertextCount + 16)
        let opened = envelope.withUnsafeBufferPointer { bytes in
            output.withUnsafeMutableBufferPointer { out in
                decrypt(
                    bytes.baseAddress!, ciphertextCount: ciphertextCount, associatedData: associatedData, into: out.baseAddress!)
            }
        }
        guard opened else {
            ERR_clear_error()
            output.withUnsafeMutableBytes { wipe($0) }
            throw .authenticationFailed
        }
        output.removeLast(16)
        return output
    }

    /// Nonce, associated data, ciphertext, tag: false when any step fails (for GCM, the tag check).
    private func decrypt(
        _ envelope: UnsafePointer<UInt8>, ciphertextCount: Int, associatedData: [UInt8], into output: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        let nonce = envelope + 1
        let ciphertext = nonce + AESGCM.nonceByteCount
        let tag = UnsafeMutableRawPointer(mutating: ciphertext + ciphertextCount)
        // Nil cipher and key keep the ones set in init; a new nonce starts a new GCM operation.
        guard EVP_CipherInit_ex2(context, nil, nil, nonce, 0, nil) == 1 else { return false }
        var length: Int32 = 0
        if !associatedData.isEmpty {
            guard EVP_CipherUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else { return false }
        }
        var written: Int32 = 0
        if ciphertextCount > 0 {
            guard EVP_CipherUpdate(context, output, &written, ciphertext, Int32(ciphertextCount)) == 1 else { return false }
        }
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(AESGCM.tagByteCount), tag) == 1 else { return false }
        var final: Int32 = 0
        return EVP_CipherFinal_ex(context, output + Int(written), &final) == 1 && Int(written + final) == ciphertextCount
    }
}
