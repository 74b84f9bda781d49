/// The few DER encodings JWS verification needs: a SubjectPublicKeyInfo for `d2i_PUBKEY` and an
/// ECDSA-Sig-Value. Building DER avoids `OSSL_PARAM_BLD`, which keeps pointers to key names and
/// fails silently when Swift passes temporaries (see SWIFT-LINUX-NOTES).
enum DER {
    static let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    static let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    static let prime256v1: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    static let secp384r1: [UInt8] = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]
    static let null: [UInt8] = [0x05, 0x00]

    static func sequence(_ parts: [UInt8]...) -> [UInt8] {
        element(tag: 0x30, parts.flatMap { $0 })
    }

    /// A non-negative INTEGER from big-endian magnitude bytes (leading zeros allowed in the input).
    static func unsignedInteger(_ magnitude: some Collection<UInt8>) -> [UInt8] {
        var bytes = Array(magnitude.drop { $0 == 0 })
        if bytes.isEmpty || bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return element(tag: 0x02, bytes)
    }

    /// A BIT STRING with no unused bits.
    static func bitString(_ bytes: [UInt8]) -> [UInt8] {
        element(tag: 0x03, [0] + bytes)
    }

    /// SubjectPublicKeyInfo (RFC 5280 §4.1): algorithm identifier, then the key as a bit string.
    static func subjectPublicKeyInfo(algorithm: [UInt8], parameters: [UInt8], key: [UInt8]) -> [UInt8] {
        sequence(sequence(algorithm, parameters), bitString(key))
    }

    static func element(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    private static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
