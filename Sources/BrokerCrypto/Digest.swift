import COpenSSL

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    public static let byteCount = 32

    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        EVPDigest.hash(data, algorithm: EVPDigest.sha256, byteCount: byteCount)
    }
}

/// SHA-384 (FIPS 180-4): `at_hash` for RS384 / ES384 ID tokens.
public enum SHA384 {
    public static let byteCount = 48

    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        EVPDigest.hash(data, algorithm: EVPDigest.sha384, byteCount: byteCount)
    }
}

/// SHA-512 (FIPS 180-4): `at_hash` for RS512 and EdDSA ID tokens.
public enum SHA512 {
    public static let byteCount = 64

    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        EVPDigest.hash(data, algorithm: EVPDigest.sha512, byteCount: byteCount)
    }
}

/// One-shot `EVP_Digest` shared by the SHA-2 functions.
private enum EVPDigest {
    // Fetched once: `EVP_sha256()` makes OpenSSL 3 fetch the algorithm from the provider store
    // on every digest, two thirds of hashing a DPoP proof's access token (docs/BENCHMARKS-archive.md,
    // "DPoP proofs: where a proof's CPU went"). A fetched EVP_MD is immutable and may be used by many threads
    // at once; it lives as long as the process. A failed fetch (no default provider) stops the process at the
    // first digest, as a failed EVP_Digest does.
    nonisolated(unsafe) static let sha256 = EVP_MD_fetch(nil, "SHA256", nil)
    nonisolated(unsafe) static let sha384 = EVP_MD_fetch(nil, "SHA384", nil)
    nonisolated(unsafe) static let sha512 = EVP_MD_fetch(nil, "SHA512", nil)

    static func hash(_ data: some Collection<UInt8>, algorithm: OpaquePointer?, byteCount: Int) -> [UInt8] {
        precondition(algorithm != nil, "OpenSSL has no SHA-2 digest: \(OpenSSLErrorQueue.drain())")
        var digest = [UInt8](repeating: 0, count: byteCount)
        var written: UInt32 = 0
        let input = Array(data)
        // EVP_Digest with a built-in algorithm cannot fail short of memory exhaustion, so the
        // API stays non-throwing; a failure is a broken process, not bad input.
        let ok = input.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &digest, &written, algorithm, nil)
        }
        precondition(ok == 1 && written == byteCount, "EVP_Digest failed: \(OpenSSLErrorQueue.drain())")
        return digest
    }
}

/// HMAC-SHA256 (RFC 2104, vectors in RFC 4231).
public enum HMACSHA256 {
    public static func authenticationCode(key: some Collection<UInt8>, message: some Collection<UInt8>) throws
        -> [UInt8]
    {
        let keyBytes = Array(key)
        let messageBytes = Array(message)
        // HMAC takes an int key length: Int32(count) would trap instead of throwing.
        guard keyBytes.count <= Int(Int32.max) else { throw CryptoError.invalidParameters("HMAC key of 2 GiB or more") }
        var out = [UInt8](repeating: 0, count: SHA256.byteCount)
        var outLength: UInt32 = 0
        let result = keyBytes.withUnsafeBytes { k in
            messageBytes.withUnsafeBytes { m in
                HMAC(
                    EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    m.count, &out, &outLength)
            }
        }
        guard result != nil, outLength == SHA256.byteCount else { throw CryptoError.fromOpenSSL("HMAC") }
        return out
    }
}
