import COpenSSL

/// The CSPRNG (OpenSSL's DRBG, seeded from getrandom).
public enum Random {
    public static func bytes(_ count: Int) throws -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        guard count <= Int(Int32.max) else { throw CryptoError.invalidParameters("\(count) random bytes in one call") }
        var buffer = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return buffer }
        guard RAND_bytes(&buffer, Int32(count)) == 1 else { throw CryptoError.fromOpenSSL("RAND_bytes") }
        return buffer
    }

    /// `count` random bytes rendered as base64url: 32 bytes give a 43-character string.
    public static func base64URL(byteCount: Int) throws -> String {
        Base64URL.encode(try bytes(byteCount))
    }
}
