import COpenSSL

/// SHA-256 (FIPS 180-4).
public enum SHA256 {
    public static let byteCount = 32

    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        let input = Array(data)
        // EVP_Digest with a built-in algorithm cannot fail short of memory exhaustion.
        let ok = input.withUnsafeBytes { raw in
            EVP_Digest(raw.baseAddress, raw.count, &digest, nil, EVP_sha256(), nil)
        }
        precondition(ok == 1, "EVP_Digest(SHA-256) failed: \(OpenSSLErrorQueue.drain())")
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
        var out = [UInt8](repeating: 0, count: SHA256.byteCount)
        var outLength: UInt32 = 0
        let result = keyBytes.withUnsafeBytes { k in
            messageBytes.withUnsafeBytes { m in
                HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    m.count, &out, &outLength)
            }
        }
        guard result != nil, outLength == SHA256.byteCount else { throw CryptoError.fromOpenSSL("HMAC") }
        return out
    }
}
