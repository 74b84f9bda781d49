import COpenSSL

/// An OpenSSL public key (`EVP_PKEY`) built from JWK members, able to verify one JWS signature.
///
/// `@unchecked Sendable` is sound: the key is fully built in `init`, never modified afterwards,
/// and OpenSSL 3 allows concurrent verifications with one `EVP_PKEY` (each uses its own
/// `EVP_MD_CTX`); it is freed in `deinit`, after the last reference is gone.
final class PublicKey: @unchecked Sendable {
    /// RSA moduli outside this range are refused: short ones are forgeable, huge ones are a
    /// denial-of-service lever (OpenSSL's own ceiling is 16384 bits).
    static let rsaBits = 2048...16384

    private let key: OpaquePointer

    private init(key: OpaquePointer) { self.key = key }

    deinit { EVP_PKEY_free(key) }

    /// An RSA key from big-endian modulus and exponent (RFC 7518 §6.3.1).
    static func rsa(modulus: [UInt8], exponent: [UInt8]) throws(JWSError) -> PublicKey {
        let e = Array(exponent.drop { $0 == 0 })
        guard let last = e.last, e.count <= 8, last & 1 == 1, e != [1] else {
            throw .invalidKey("RSA exponent must be odd, at least 3 and at most 64 bits")
        }
        let spki = DER.subjectPublicKeyInfo(
            algorithm: DER.rsaEncryption, parameters: DER.null,
            key: DER.sequence(DER.unsignedInteger(modulus), DER.unsignedInteger(e)))
        let key = try decode(spki, what: "RSA")
        let bits = Int(EVP_PKEY_get_bits(key.key))
        guard rsaBits.contains(bits) else {
            throw .invalidKey("RSA modulus has \(bits) bits; at least \(rsaBits.lowerBound) are required")
        }
        return key
    }

    /// An EC key from its affine coordinates, each exactly the curve's field size (RFC 7518 §6.2.1).
    static func ec(curve: String, x: [UInt8], y: [UInt8]) throws(JWSError) -> PublicKey {
        let (oid, size): ([UInt8], Int)
        switch curve {
        case "P-256": (oid, size) = (DER.prime256v1, 32)
        case "P-384": (oid, size) = (DER.secp384r1, 48)
        default: throw .invalidKey("EC curve '\(curve)' is not supported (P-256, P-384)")
        }
        guard x.count == size, y.count == size else {
            throw .invalidKey("\(curve) coordinates must be \(size) bytes each, got \(x.count) and \(y.count)")
        }
        // d2i_PUBKEY refuses a point that is not on the curve.
        let spki = DER.subjectPublicKeyInfo(algorithm: DER.ecPublicKey, parameters: oid, key: [0x04] + x + y)
        return try decode(spki, what: curve)
    }

    /// An Ed25519 key from its 32 raw bytes (RFC 8037 §2).
    static func ed25519(x: [UInt8]) throws(JWSError) -> PublicKey {
        guard x.count == 32 else { throw .invalidKey("Ed25519 key must be 32 bytes, got \(x.count)") }
        guard let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, x, x.count) else {
            throw .invalidKey("Ed25519 key refused by OpenSSL: \(OpenSSLErrorQueue.drain())")
        }
        return PublicKey(key: key)
    }

    private static func decode(_ spki: [UInt8], what: String) throws(JWSError) -> PublicKey {
        let decoded: OpaquePointer? = spki.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let decoded else {
            throw .invalidKey("\(what) key refused by OpenSSL: \(OpenSSLErrorQueue.drain())")
        }
        return PublicKey(key: decoded)
    }

    /// Verifies `signature` over `input` as `algorithm` prescribes. `badSignature` for any
    /// signature that does not verify (including wrong lengths); `openSSL` when set-up fails.
    func verify(signature: [UInt8], input: [UInt8], algorithm: JWSAlgorithm) throws(JWSError) {
        let encoded = try Self.encodedSignature(signature, algorithm: algorithm)
        guard let context = EVP_MD_CTX_new() else { throw .fromOpenSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestVerifyInit(context, &keyContext, Self.digest(algorithm), nil, key) == 1 else {
            throw .fromOpenSSL("EVP_DigestVerifyInit(\(algorithm.rawValue))")
        }
        if algorithm == .ps256 {
            // RFC 7518 §3.5: MGF1 with the same hash, salt as long as the hash output.
            guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, Int32(SHA256.byteCount)) == 1,
                EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, EVP_sha256()) == 1
            else { throw .fromOpenSSL("EVP_PKEY_CTX_set_rsa_padding(PSS)") }
        }
        let verified = EVP_DigestVerify(context, encoded, encoded.count, input, input.count)
        guard verified == 1 else {
            // A wrong signature leaves reasons on the queue; they say nothing useful here.
            ERR_clear_error()
            throw .badSignature
        }
    }

    private static func digest(_ algorithm: JWSAlgorithm) -> OpaquePointer? {
        switch algorithm {
        case .rs256, .ps256, .es256: EVP_sha256()
        case .rs384, .es384: EVP_sha384()
        case .rs512: EVP_sha512()
        case .edDSA: nil  // Ed25519 hashes internally: one-shot verify with no digest.
        }
    }

    /// JWS carries ECDSA signatures as fixed-length r‖s (RFC 7518 §3.4); OpenSSL wants DER.
    private static func encodedSignature(_ signature: [UInt8], algorithm: JWSAlgorithm) throws(JWSError) -> [UInt8] {
        let half: Int
        switch algorithm {
        case .es256: half = 32
        case .es384: half = 48
        case .edDSA:
            guard signature.count == 64 else { throw .badSignature }
            return signature
        case .rs256, .rs384, .rs512, .ps256:
            return signature
        }
        guard signature.count == 2 * half else { throw .badSignature }
        return DER.sequence(
            DER.unsignedInteger(signature[..<half]), DER.unsignedInteger(signature[half...]))
    }
}
