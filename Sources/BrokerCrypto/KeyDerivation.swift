import COpenSSL

/// Key derivation through OpenSSL 3's `EVP_KDF`: scrypt (RFC 7914) for passphrases and
/// HKDF-SHA256 (RFC 5869) for deriving sub-keys from a key that is already uniformly random.
///
/// Every derived key comes back as a `Secret`; intermediate copies of inputs are wiped.
public enum KeyDerivation {
    /// scrypt cost parameters. `n` must be a power of two greater than 1.
    public struct ScryptParameters: Sendable, Equatable, CustomStringConvertible {
        public var n: UInt64
        public var r: UInt32
        public var p: UInt32

        public init(n: UInt64, r: UInt32, p: UInt32) {
            self.n = n
            self.r = r
            self.p = p
        }

        /// The vault's passphrase default: N=2^16, r=8, p=1 → 64 MiB for scrypt's table (~70 MiB
        /// peak RSS) and 0.23–0.46 s on this 2-core machine (measured with `openssl kdf`). Paid once
        /// per daemon start; every offline guess costs an attacker the same memory and time.
        public static let passphraseDefault = ScryptParameters(n: 1 << 16, r: 8, p: 1)

        /// Memory scrypt needs for these parameters (128·r·N for V plus 128·r·p for B).
        public var memoryBytes: UInt64 { 128 * UInt64(r) * (n + UInt64(p)) }

        public var description: String { "scrypt(N=\(n), r=\(r), p=\(p))" }
    }

    /// Refuse parameters whose memory need exceeds this (a corrupted or hostile stored value).
    public static let scryptMemoryLimit: UInt64 = 1 << 30

    /// scrypt(password, salt, N, r, p) → `length` bytes.
    public static func scrypt(
        password: Secret, salt: some Collection<UInt8>, parameters: ScryptParameters, length: Int
    ) throws(CryptoError) -> Secret {
        let (n, r, p) = (parameters.n, parameters.r, parameters.p)
        guard n > 1, n & (n - 1) == 0 else { throw .invalidParameters("scrypt N must be a power of two > 1") }
        guard r >= 1, p >= 1 else { throw .invalidParameters("scrypt r and p must be at least 1") }
        guard parameters.memoryBytes <= scryptMemoryLimit else {
            throw .invalidParameters("\(parameters) needs more than \(scryptMemoryLimit >> 20) MiB")
        }
        let salt = ParameterBuffer(Array(salt))
        let pass = password.withUnsafeBytes { ParameterBuffer($0) }
        let integers = IntegerParameters(n: n, r: r, p: p, maxMemory: scryptMemoryLimit + (1 << 20))
        defer { withExtendedLifetime((salt, pass, integers)) {} }
        return try derive(
            algorithm: "SCRYPT",
            parameters: [
                pass.parameter(named: "pass"),
                salt.parameter(named: "salt"),
                OSSL_PARAM_construct_uint64(cName("n"), integers.n),
                OSSL_PARAM_construct_uint32(cName("r"), integers.r),
                OSSL_PARAM_construct_uint32(cName("p"), integers.p),
                OSSL_PARAM_construct_uint64(cName("maxmem_bytes"), integers.maxMemory),
            ], length: length)
    }

    /// HKDF-SHA256 extract-and-expand (RFC 5869) → `length` bytes (at most 255·32).
    public static func hkdfSHA256(
        inputKeyMaterial: Secret, salt: some Collection<UInt8>, info: some Collection<UInt8>, length: Int
    ) throws(CryptoError) -> Secret {
        guard length <= 255 * SHA256.byteCount else {
            throw .invalidParameters("HKDF-SHA256 output is limited to \(255 * SHA256.byteCount) bytes")
        }
        let key = inputKeyMaterial.withUnsafeBytes { ParameterBuffer($0) }
        let salt = ParameterBuffer(Array(salt))
        let info = ParameterBuffer(Array(info))
        let digest = ParameterBuffer(Array("SHA256".utf8) + [0])
        defer { withExtendedLifetime((key, salt, info, digest)) {} }
        return try derive(
            algorithm: "HKDF",
            parameters: [
                OSSL_PARAM_construct_utf8_string(
                    cName("digest"), digest.pointer.assumingMemoryBound(to: CChar.self), 0),
                key.parameter(named: "key"),
                salt.parameter(named: "salt"),
                info.parameter(named: "info"),
            ], length: length)
    }

    /// Fetches `algorithm`, applies `parameters` and derives `length` bytes.
    private static func derive(algorithm: StaticString, parameters: [OSSL_PARAM], length: Int)
        throws(CryptoError) -> Secret
    {
        guard length > 0 else { throw .invalidParameters("derived key length must be positive") }
        guard let kdf = EVP_KDF_fetch(nil, cName(algorithm), nil) else {
            throw .fromOpenSSL("EVP_KDF_fetch(\(algorithm))")
        }
        defer { EVP_KDF_free(kdf) }
        guard let context = EVP_KDF_CTX_new(kdf) else { throw .fromOpenSSL("EVP_KDF_CTX_new") }
        defer { EVP_KDF_CTX_free(context) }
        var terminated = parameters + [OSSL_PARAM_construct_end()]
        var output = [UInt8](repeating: 0, count: length)
        defer { output.withUnsafeMutableBytes { wipe($0) } }
        guard EVP_KDF_derive(context, &output, length, &terminated) == 1 else {
            throw .fromOpenSSL("EVP_KDF_derive(\(algorithm))")
        }
        return Secret(output)
    }

    /// A parameter name with a stable address. OSSL_PARAM keeps the *pointer* to its name, so a
    /// temporary bridged from a Swift String would dangle (see SWIFT-LINUX-NOTES.md).
    private static func cName(_ name: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    }
}

/// A heap copy of one OSSL_PARAM octet-string value: never a nil pointer (OpenSSL rejects NULL data
/// even for empty values), alive as long as this object, wiped on release because it may hold a key.
private final class ParameterBuffer {
    let pointer: UnsafeMutableRawPointer
    let count: Int

    init(_ bytes: some Collection<UInt8>) {
        count = bytes.count
        pointer = .allocate(byteCount: max(count, 1), alignment: 16)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(count, 1))
        for (offset, byte) in bytes.enumerated() { pointer.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self) }
    }

    deinit {
        wipe(UnsafeMutableRawBufferPointer(start: pointer, count: max(count, 1)))
        pointer.deallocate()
    }

    func parameter(named name: StaticString) -> OSSL_PARAM {
        OSSL_PARAM_construct_octet_string(
            UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self), pointer, count)
    }
}

/// Heap cells for scrypt's integer parameters: OSSL_PARAM stores pointers to them until derive runs.
private final class IntegerParameters {
    let n = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
    let r = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
    let p = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
    let maxMemory = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)

    init(n: UInt64, r: UInt32, p: UInt32, maxMemory: UInt64) {
        self.n.initialize(to: n)
        self.r.initialize(to: r)
        self.p.initialize(to: p)
        self.maxMemory.initialize(to: maxMemory)
    }

    deinit {
        n.deallocate()
        r.deallocate()
        p.deallocate()
        maxMemory.deallocate()
    }
}
