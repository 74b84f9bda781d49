import COpenSSL
import Synchronization
import WireFormats

/// A P-256 private key that signs JWS ES256 (RFC 7518 §3.4): the DPoP key of an account.
///
/// The private half leaves the object only as PKCS#8 DER inside a `Secret` (`exportPKCS8`), so it
/// can be sealed in the vault like a refresh token; it is never part of a description, a mirror
/// or an error. `publicJWK` is the half a server may see.
///
/// `@unchecked Sendable` is sound: the `EVP_PKEY` and the signing template are fully built in the
/// factory methods and never modified afterwards; OpenSSL 3 allows concurrent signing with one key
/// (each signature has its own `EVP_MD_CTX`, copied from the template under a lock); both are
/// freed in `deinit`, after the last reference is gone.
public final class ECSigningKey: @unchecked Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// A PKCS#8 P-256 key is about 138 bytes; anything much longer is not one.
    public static let maximumPKCS8Length = 1024
    /// Bytes of each coordinate and of each half of a signature.
    static let coordinateSize = 32

    private let key: OpaquePointer
    /// The public key, read once: signing proofs needs it every time.
    public let publicJWK: ECPublicJWK
    /// An `EVP_MD_CTX` set up once by `EVP_DigestSignInit` for this key; each signature works on a
    /// copy. Why: OpenSSL 3's init fetches the signature and digest algorithms from the provider
    /// store on every call, a large share of a DPoP proof's cost (docs/BENCHMARKS-archive.md,
    /// "DPoP proofs: on the connection thread"). `templateLock` serialises the copies, the only use of the
    /// template after init.
    private let signTemplate: OpaquePointer
    private let templateLock = Mutex(())
    /// The base64url JOSE header of this key's DPoP proofs (`DPoPProof.headerJSON`): the same for
    /// every proof, so encoded once.
    let dpopHeaderSegment: String

    private init(key: OpaquePointer) throws(CryptoError) {
        self.key = key
        do {
            publicJWK = ECPublicJWK(
                x: Base64URL.encode(try Self.coordinate(key, OSSL_PKEY_PARAM_EC_PUB_X)),
                y: Base64URL.encode(try Self.coordinate(key, OSSL_PKEY_PARAM_EC_PUB_Y)))
            dpopHeaderSegment = Base64URL.encode(Array(DPoPProof.headerJSON(publicJWK).utf8))
            signTemplate = try Self.signContext(key)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
    }

    deinit {
        EVP_MD_CTX_free(signTemplate)
        EVP_PKEY_free(key)
    }

    private static func signContext(_ key: OpaquePointer) throws(CryptoError) -> OpaquePointer {
        guard let context = EVP_MD_CTX_new() else { throw .fromOpenSSL("EVP_MD_CTX_new") }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            EVP_MD_CTX_free(context)
            throw .fromOpenSSL("EVP_DigestSignInit")
        }
        return context
    }

    /// A fresh key from OpenSSL's CSPRNG.
    public static func generate() throws(CryptoError) -> ECSigningKey {
        // EVP_PKEY_Q_keygen is variadic and does not import: a context with a group name instead.
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw .fromOpenSSL("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, "P-256") == 1 else {
            throw .fromOpenSSL("EVP_PKEY_keygen_init(P-256)")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw .fromOpenSSL("EVP_PKEY_generate") }
        return try ECSigningKey(key: key)
    }

    /// A key exported by `exportPKCS8`. Refuses anything that is not an unencrypted PKCS#8 P-256
    /// key whose public point matches its private scalar.
    public convenience init(pkcs8: Secret) throws(CryptoError) {
        guard pkcs8.count <= Self.maximumPKCS8Length else {
            throw .invalidParameters("a P-256 PKCS#8 key is under \(Self.maximumPKCS8Length) bytes, got \(pkcs8.count)")
        }
        let info: OpaquePointer? = pkcs8.withUnsafeBytes { raw in
            var cursor = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return d2i_PKCS8_PRIV_KEY_INFO(nil, &cursor, raw.count)
        }
        guard let info else { throw .fromOpenSSL("d2i_PKCS8_PRIV_KEY_INFO") }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        guard let key = EVP_PKCS82PKEY(info) else { throw .fromOpenSSL("EVP_PKCS82PKEY") }
        do {
            try Self.checkP256(key)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        try self.init(key: key)
    }

    /// The private key as unencrypted PKCS#8 DER (RFC 5208), for sealing in the vault.
    public func exportPKCS8() throws(CryptoError) -> Secret {
        guard let info = EVP_PKEY2PKCS8(key) else { throw .fromOpenSSL("EVP_PKEY2PKCS8") }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        let length = i2d_PKCS8_PRIV_KEY_INFO(info, nil)
        guard length > 0, Int(length) <= Self.maximumPKCS8Length else { throw .fromOpenSSL("i2d_PKCS8_PRIV_KEY_INFO") }
        // A raw buffer rather than an Array, which could leave copies behind: wiped before it is freed.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(length), alignment: 16)
        defer {
            OpenSSLCleanse.cleanse(buffer.baseAddress!, buffer.count)
            buffer.deallocate()
        }
        var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard i2d_PKCS8_PRIV_KEY_INFO(info, &cursor) == length else { throw .fromOpenSSL("i2d_PKCS8_PRIV_KEY_INFO") }
        return Secret(UnsafeRawBufferPointer(buffer))
    }

    /// ES256 over `input`: SHA-256, ECDSA, then the JWS form r‖s (64 bytes, each half left-padded).
    public func sign(_ input: some Collection<UInt8>) throws(CryptoError) -> [UInt8] {
        let bytes = Array(input)
        guard let context = EVP_MD_CTX_new() else { throw .fromOpenSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        let copied = templateLock.withLock { _ in EVP_MD_CTX_copy_ex(context, signTemplate) }
        guard copied == 1 else { throw .fromOpenSSL("EVP_MD_CTX_copy_ex") }
        // One signature per context: without FINALISE, OpenSSL duplicates the context to keep it
        // usable after the final call.
        EVP_MD_CTX_set_flags(context, EVP_MD_CTX_FLAG_FINALISE)
        var der = [UInt8](repeating: 0, count: Int(EVP_PKEY_get_size(key)))
        var length = der.count
        guard EVP_DigestSign(context, &der, &length, bytes, bytes.count) == 1 else { throw .fromOpenSSL("EVP_DigestSign") }
        return try Self.rawSignature(der.prefix(length))
    }

    /// OpenSSL signs ECDSA as a DER ECDSA-Sig-Value; JWS wants fixed-width r‖s (RFC 7518 §3.4).
    static func rawSignature(_ der: ArraySlice<UInt8>) throws(CryptoError) -> [UInt8] {
        let parsed: OpaquePointer? = Array(der).withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw .fromOpenSSL("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        let half = Int32(coordinateSize)
        var raw = [UInt8](repeating: 0, count: 2 * coordinateSize)
        let written = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, half) + BN_bn2binpad(s, buffer.baseAddress! + coordinateSize, half)
        }
        guard written == 2 * half else { throw .fromOpenSSL("BN_bn2binpad") }
        return raw
    }

    private static func coordinate(_ key: OpaquePointer, _ name: String) throws(CryptoError) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, name, &number) == 1, let number else {
            throw .fromOpenSSL("EVP_PKEY_get_bn_param(\(name))")
        }
        defer { BN_free(number) }
        var bytes = [UInt8](repeating: 0, count: coordinateSize)
        guard BN_bn2binpad(number, &bytes, Int32(coordinateSize)) == coordinateSize else { throw .fromOpenSSL("BN_bn2binpad") }
        return bytes
    }

    private static func checkP256(_ key: OpaquePointer) throws(CryptoError) {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_is_a(key, "EC") == 1, EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1,
            String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
        else {
            ERR_clear_error()
            throw .invalidParameters("the DPoP key is not a P-256 EC key")
        }
        // A PKCS#8 document may carry a public point that does not belong to its scalar.
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { throw .fromOpenSSL("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_pairwise_check(context) == 1 else { throw .fromOpenSSL("EVP_PKEY_pairwise_check") }
    }

    public var description: String { "ECSigningKey(P-256, private key redacted)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: []) }
}

/// The public half of a P-256 key as JWK members (RFC 7518 §6.2.1): what a DPoP proof's
/// header carries and what its thumbprint (`jkt`) is computed from.
public struct ECPublicJWK: Sendable, Equatable, Encodable {
    public let kty = "EC"
    public let crv = "P-256"
    /// Base64url of the 32-byte big-endian affine coordinates.
    public let x: String
    public let y: String

    /// The members as a JSON object, in RFC 7638's canonical order (also valid as a plain JWK).
    public var json: String { JWKThumbprint.canonicalJSON(["crv": crv, "kty": kty, "x": x, "y": y]) }

    /// The RFC 7638 SHA-256 thumbprint: the value of `cnf.jkt` and `dpop_jkt`.
    public var thumbprint: String { JWKThumbprint.sha256(json) }
}

/// Two keys are equal when their public keys are: a P-256 public point has one private scalar, so
/// token sets compare equal exactly when they are bound to the same key.
extension ECSigningKey: Equatable {
    public static func == (lhs: ECSigningKey, rhs: ECSigningKey) -> Bool { lhs.publicJWK == rhs.publicJWK }
}
