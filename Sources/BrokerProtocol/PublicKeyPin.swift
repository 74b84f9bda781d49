/// An account's `--pin-sha256` value: the standard base64 (RFC 4648 §4) of the SHA-256 of a
/// certificate's SubjectPublicKeyInfo, 44 characters with its one `=` — what
/// `openssl x509 -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64`
/// prints, and what curl's `--pinnedpubkey sha256//…` takes (that prefix is accepted too).
public enum PublicKeyPin {
    /// Pins one account may carry: the current key and the next ones, for rotation.
    public static let maximumCount = 8

    /// The 32-byte digest `text` names; nil unless it is exactly such a pin (canonical base64).
    public static func digest(_ text: String) -> [UInt8]? {
        var body = Substring(text)
        if body.hasPrefix("sha256//") { body = body.dropFirst("sha256//".count) }
        let characters = Array(body.utf8)
        guard characters.count == 44, characters[43] == UInt8(ascii: "=") else { return nil }
        var accumulator: UInt32 = 0
        var bits = 0
        var digest: [UInt8] = []
        for character in characters[..<43] {
            guard let value = sextet(character) else { return nil }
            accumulator = accumulator << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                digest.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // 43 characters carry 258 bits: the 2 left over must be zero (one text per digest).
        guard accumulator & ((1 << UInt32(bits)) - 1) == 0, digest.count == 32 else { return nil }
        return digest
    }

    /// Why `pins` cannot be an account's, or nil.
    public static func problem(with pins: [String]) -> String? {
        guard pins.count <= maximumCount else { return "at most \(maximumCount) pins (the current key and the next ones)" }
        for pin in pins where digest(pin) == nil {
            return "'\(pin.prefix(60))' is not a SHA-256 pin: give the 44-character base64 of the SHA-256 of a "
                + "SubjectPublicKeyInfo (openssl x509 -pubkey -noout | openssl pkey -pubin -outform DER | "
                + "openssl dgst -sha256 -binary | base64)"
        }
        return nil
    }

    private static func sextet(_ character: UInt8) -> UInt32? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): UInt32(character - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): UInt32(character - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(character - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
