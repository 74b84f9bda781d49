import COpenSSL
import Glibc
import WireFormats

/// The CSPRNG: the kernel's, through getrandom(2).
///
/// Why not OpenSSL's DRBG (`RAND_bytes`): it is seeded from the same source, and it cost ≈ 3× a
/// getrandom call per draw — a tenth of a DPoP proof's CPU for its 16-byte `jti`
/// (docs/BENCHMARKS-archive.md, "DPoP proofs: where a proof's CPU went"). getrandom blocks only until the
/// kernel's pool is initialised at boot; a draw of up to 256 bytes is filled by one call, a longer one may come
/// back short or be interrupted by a signal, which the loop covers.
public enum Random {
    public static func bytes(_ count: Int) throws -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        guard count <= Int(Int32.max) else { throw CryptoError.invalidParameters("\(count) random bytes in one call") }
        var buffer = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let result = buffer.withUnsafeMutableBytes { raw in getrandom(raw.baseAddress! + filled, count - filled, 0) }
            if result > 0 {
                filled += result
            } else if result < 0 && errno == EINTR {
                continue
            } else {
                // Never 0 for a non-empty buffer; treated as a failure rather than looped on.
                throw CryptoError.invalidParameters("getrandom failed: \(String(cString: strerror(errno)))")
            }
        }
        return buffer
    }

    /// `count` random bytes rendered as base64url: 32 bytes give a 43-character string.
    public static func base64URL(byteCount: Int) throws -> String {
        Base64URL.encode(try bytes(byteCount))
    }
}
