import BrokerCrypto
import COpenSSL
import Foundation
import WireFormats

extension TestSigningKey {
    /// A compact JWS over `payload`. The header gets `alg` (the signing algorithm) and `kid`
    /// unless `header` sets them: a test may label a token with another `alg` than the one that
    /// signed it. The signature uses `algorithm`, else the header's `alg` when this key can sign
    /// it, else the key's default. `includeKid: false` leaves `kid` out, as single-key providers may.
    public func sign(
        header: [String: String] = [:], payload: [UInt8], as algorithm: JWSAlgorithm? = nil, includeKid: Bool = true
    ) throws -> String {
        let headerAlgorithm = header["alg"].flatMap { JWSAlgorithm(rawValue: $0) }
        let signing =
            algorithm
            ?? headerAlgorithm.flatMap { kind.algorithms.contains($0) ? $0 : nil } ?? self.algorithm
        guard kind.algorithms.contains(signing) else {
            throw TestSigningError.unsupported("\(kind) keys cannot sign \(signing.rawValue)")
        }
        var fullHeader = header
        fullHeader["alg"] = header["alg"] ?? signing.rawValue
        fullHeader["kid"] = header["kid"] ?? (includeKid ? kid : nil)
        let input = try Self.signingInput(header: fullHeader, payload: payload)
        return input + "." + Base64URL.encode(try signature(over: Array(input.utf8), algorithm: signing))
    }

    /// Signs a JSON claims object (keys sorted), e.g. `["iss": issuer, "exp": 1_700_000_000]`.
    public func sign(header: [String: String] = [:], claims: [String: Any], as algorithm: JWSAlgorithm? = nil)
        throws -> String
    {
        try sign(header: header, payload: Self.json(claims), as: algorithm)
    }

    // MARK: Deliberately defective tokens

    /// An unsecured JWS (`alg` "none", empty signature, RFC 7515 §A.5): must always be refused.
    public static func unsecuredToken(header: [String: String] = [:], payload: [UInt8]) throws -> String {
        var fullHeader = header
        fullHeader["alg"] = "none"
        return try signingInput(header: fullHeader, payload: payload) + "."
    }

    /// A correctly signed token whose signature then has one byte flipped.
    public func tokenWithFlippedSignatureByte(
        header: [String: String] = [:], payload: [UInt8], at index: Int? = nil
    ) throws -> String {
        let parts = try sign(header: header, payload: payload).split(separator: ".")
        var signature = try Base64URL.decode(parts[2])
        signature[index ?? signature.count / 2] ^= 0x01
        return "\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))"
    }

    /// The key-confusion attack: HS256 keyed with this key's public DER bytes, as a verifier that
    /// trusted the header `alg` would compute it.
    public func hs256TokenKeyedWithPublicKey(header: [String: String] = [:], payload: [UInt8]) throws -> String {
        var fullHeader = header
        fullHeader["alg"] = "HS256"
        fullHeader["kid"] = header["kid"] ?? kid
        let input = try Self.signingInput(header: fullHeader, payload: payload)
        let mac = try HMACSHA256.authenticationCode(key: publicKeyDER(), message: Array(input.utf8))
        return input + "." + Base64URL.encode(mac)
    }

    // MARK: Signing

    static func signingInput(header: [String: String], payload: [UInt8]) throws -> String {
        Base64URL.encode(try json(header)) + "." + Base64URL.encode(payload)
    }

    private func signature(over input: [UInt8], algorithm: JWSAlgorithm) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw TestSigningError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        let digest: OpaquePointer? =
            switch algorithm {
            case .rs256, .ps256, .es256: EVP_sha256()
            case .rs384, .es384: EVP_sha384()
            case .rs512: EVP_sha512()
            case .edDSA: nil
            }
        guard EVP_DigestSignInit(context, &keyContext, digest, nil, key) == 1 else {
            throw TestSigningError.openSSL("EVP_DigestSignInit")
        }
        if algorithm == .ps256 {
            guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, 32) == 1,
                EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, EVP_sha256()) == 1
            else { throw TestSigningError.openSSL("PSS parameters") }
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, input, input.count) == 1 else {
            throw TestSigningError.openSSL("EVP_DigestSign(length)")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, input, input.count) == 1 else {
            throw TestSigningError.openSSL("EVP_DigestSign")
        }
        signature.removeLast(signature.count - length)
        switch algorithm {
        case .es256: return try Self.rawECDSA(signature, half: 32)
        case .es384: return try Self.rawECDSA(signature, half: 48)
        default: return signature
        }
    }

    /// OpenSSL signs ECDSA as DER; JWS wants r‖s, each left-padded to the coordinate size.
    private static func rawECDSA(_ der: [UInt8], half: Int) throws -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw TestSigningError.openSSL("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        var raw = [UInt8](repeating: 0, count: 2 * half)
        let written = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, Int32(half)) + BN_bn2binpad(s, buffer.baseAddress! + half, Int32(half))
        }
        guard written == 2 * half else { throw TestSigningError.openSSL("BN_bn2binpad") }
        return raw
    }
}
