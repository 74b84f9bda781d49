/// A 256-bit key for AES-256-GCM. The bytes are held in a `Secret` (wiped on release, never printed).
public struct SymmetricKey: Sendable, Equatable, CustomStringConvertible {
    public static let byteCount = 32

    public let secret: Secret

    public init(_ secret: Secret) throws(CryptoError) {
        guard secret.count == Self.byteCount else {
            throw .invalidKeyLength(expected: Self.byteCount, actual: secret.count)
        }
        self.secret = secret
    }

    public init(bytes: some Collection<UInt8>) throws(CryptoError) {
        try self.init(Secret(bytes))
    }

    /// A fresh key from the CSPRNG.
    public static func generate() throws -> SymmetricKey {
        var bytes = try Random.bytes(byteCount)
        defer { bytes.withUnsafeMutableBytes { wipe($0) } }
        return try SymmetricKey(bytes: bytes)
    }

    public var description: String { "SymmetricKey(<redacted>)" }
}

/// Overwrites a buffer in a way the optimiser may not remove.
public func wipe(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    OpenSSLCleanse.cleanse(base, buffer.count)
}
