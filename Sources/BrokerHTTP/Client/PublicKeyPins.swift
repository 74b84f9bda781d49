import COpenSSL

/// SHA-256 digests of SubjectPublicKeyInfo (DER) structures, one of which must appear in a
/// server's verified certificate chain — checked in addition to normal verification, never
/// instead of it (the format of curl's `--pinnedpubkey sha256//…`, RFC 7469 §2.4's digest).
/// Several pins allow rotation: the next key is pinned before the provider switches to it.
public struct PublicKeyPins: Sendable, Hashable {
    /// The 32-byte digests; empty means no pinning.
    public let digests: Set<[UInt8]>

    public static let none = PublicKeyPins(digests: [])

    public init(digests: Set<[UInt8]>) {
        precondition(digests.allSatisfy { $0.count == 32 }, "a SHA-256 SPKI pin is 32 bytes")
        self.digests = digests
    }

    public var isEmpty: Bool { digests.isEmpty }

    /// True when a certificate of the chain OpenSSL verified for `ssl` carries a pinned key.
    /// The verified chain (leaf to trust anchor), not the certificates the peer sent: an
    /// intermediate pin holds only when that intermediate really signed the leaf.
    func match(verifiedChainOf ssl: OpaquePointer) -> Bool {
        guard let chain = SSL_get0_verified_chain(ssl) else { return false }
        // sk_X509_num / sk_X509_value are macros over the untyped stack functions.
        let stack = chain
        for index in 0..<OPENSSL_sk_num(stack) {
            guard let raw = OPENSSL_sk_value(stack, index),
                let digest = Self.digest(ofKeyIn: OpaquePointer(raw))
            else { continue }
            if digests.contains(digest) { return true }
        }
        return false
    }

    /// SHA-256 of the certificate's SubjectPublicKeyInfo in DER.
    static func digest(ofKeyIn certificate: OpaquePointer) -> [UInt8]? {
        guard let key = X509_get_X509_PUBKEY(certificate) else { return nil }
        let length = i2d_X509_PUBKEY(key, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_X509_PUBKEY(key, &cursor)
        }
        guard written == length else { return nil }
        var digest = [UInt8](repeating: 0, count: 32)
        guard SHA256(der, der.count, &digest) != nil else { return nil }
        return digest
    }
}
