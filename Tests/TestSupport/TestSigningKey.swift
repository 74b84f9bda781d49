import BrokerCrypto
import COpenSSL
import Foundation
import WireFormats

/// A private signing key for tests: the mock OpenID provider mints ID tokens with it and
/// publishes `publicJWK` in its JWKS.
///
/// `@unchecked Sendable` is sound: the `EVP_PKEY` is generated in `init` and never modified;
/// OpenSSL 3 allows concurrent signing with one key (each signature uses its own `EVP_MD_CTX`).
public final class TestSigningKey: @unchecked Sendable {
    public enum Kind: Sendable, Equatable {
        case rsa(bits: Int)
        case p256
        case p384
        case ed25519
    }

    public let kind: Kind
    public let kid: String
    /// The algorithm `sign` uses by default, and the `alg` of the published JWK.
    public let algorithm: JWSAlgorithm
    let key: OpaquePointer

    /// Generates a fresh key. `algorithm` defaults to RS256, ES256, ES384 or EdDSA by kind.
    public init(_ kind: Kind, kid: String? = nil, algorithm: JWSAlgorithm? = nil) throws {
        self.kind = kind
        self.kid = try kid ?? Random.base64URL(byteCount: 9)
        self.algorithm = algorithm ?? kind.algorithms[0]
        guard kind.algorithms.contains(self.algorithm) else {
            throw TestSigningError.unsupported("\(kind) keys cannot sign \(self.algorithm.rawValue)")
        }
        key = try Self.generate(kind)
    }

    deinit { EVP_PKEY_free(key) }

    private static func generate(_ kind: Kind) throws -> OpaquePointer {
        let name =
            switch kind {
            case .rsa: "RSA"
            case .p256, .p384: "EC"
            case .ed25519: "ED25519"
            }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, name, nil) else {
            throw TestSigningError.openSSL("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw TestSigningError.openSSL("EVP_PKEY_keygen_init") }
        let configured =
            switch kind {
            case .rsa(let bits): EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits))
            case .p256: EVP_PKEY_CTX_set_group_name(context, "P-256")
            case .p384: EVP_PKEY_CTX_set_group_name(context, "P-384")
            case .ed25519: Int32(1)
            }
        guard configured == 1 else { throw TestSigningError.openSSL("keygen parameters") }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw TestSigningError.openSSL("EVP_PKEY_generate") }
        return key
    }

    // MARK: Public key export

    /// The public JWK members, with `kid`, `use` and (unless `pinAlgorithm` is false) `alg`.
    public func publicJWK(pinAlgorithm: Bool = true) throws -> [String: String] {
        var jwk = ["kid": kid, "use": "sig"]
        if pinAlgorithm { jwk["alg"] = algorithm.rawValue }
        switch kind {
        case .rsa:
            jwk["kty"] = "RSA"
            jwk["n"] = Base64URL.encode(try bigNumber("n", size: nil))
            jwk["e"] = Base64URL.encode(try bigNumber("e", size: nil))
        case .p256, .p384:
            let size = kind == .p256 ? 32 : 48
            jwk["kty"] = "EC"
            jwk["crv"] = kind == .p256 ? "P-256" : "P-384"
            jwk["x"] = Base64URL.encode(try bigNumber("qx", size: size))
            jwk["y"] = Base64URL.encode(try bigNumber("qy", size: size))
        case .ed25519:
            jwk["kty"] = "OKP"
            jwk["crv"] = "Ed25519"
            var raw = [UInt8](repeating: 0, count: 32)
            var length = raw.count
            guard EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1, length == 32 else {
                throw TestSigningError.openSSL("EVP_PKEY_get_raw_public_key")
            }
            jwk["x"] = Base64URL.encode(raw)
        }
        return jwk
    }

    /// `publicJWK` as JSON bytes (sorted keys).
    public func publicJWKJSON(pinAlgorithm: Bool = true) throws -> [UInt8] {
        try Self.json(publicJWK(pinAlgorithm: pinAlgorithm))
    }

    /// A JWKS document `{"keys":[...]}` publishing these keys.
    public static func jwksJSON(_ keys: [TestSigningKey], pinAlgorithm: Bool = true) throws -> [UInt8] {
        try json(["keys": keys.map { try $0.publicJWK(pinAlgorithm: pinAlgorithm) }])
    }

    /// The DER SubjectPublicKeyInfo: public bytes an attacker could use as an HMAC key.
    public func publicKeyDER() throws -> [UInt8] {
        let length = i2d_PUBKEY(key, nil)
        guard length > 0 else { throw TestSigningError.openSSL("i2d_PUBKEY") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(key, &cursor)
        }
        guard written == length else { throw TestSigningError.openSSL("i2d_PUBKEY") }
        return der
    }

    private func bigNumber(_ name: String, size: Int?) throws -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else {
            throw TestSigningError.openSSL("EVP_PKEY_get_bn_param(\(name))")
        }
        defer { BN_free(number) }
        let count = size ?? Int((BN_num_bits(number) + 7) / 8)
        var bytes = [UInt8](repeating: 0, count: count)
        guard BN_bn2binpad(number, &bytes, Int32(count)) == count else {
            throw TestSigningError.openSSL("BN_bn2binpad")
        }
        return bytes
    }

    /// JSON bytes with sorted keys, so tokens and JWKS documents are reproducible.
    public static func json(_ object: Any) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }
}

extension TestSigningKey.Kind {
    /// The algorithms a key of this kind can sign; the first is the default.
    public var algorithms: [JWSAlgorithm] {
        switch self {
        case .rsa: [.rs256, .rs384, .rs512, .ps256]
        case .p256: [.es256]
        case .p384: [.es384]
        case .ed25519: [.edDSA]
        }
    }
}

/// Failures of the test signer.
public enum TestSigningError: Error, CustomStringConvertible {
    case openSSL(String)
    case unsupported(String)

    public var description: String {
        switch self {
        case .openSSL(let function): "OpenSSL \(function) failed: \(OpenSSLErrorQueue.drain())"
        case .unsupported(let why): why
        }
    }
}

extension TestSigningKey: CustomStringConvertible {
    /// Names the key in test output; a test key's private half is never printed.
    public var description: String { "TestSigningKey(\(kind), kid \(kid), \(algorithm.rawValue))" }
}
