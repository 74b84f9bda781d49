import WireFormats

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
        // 44 characters with one `=` carry exactly 32 bytes; the decoder is strict (one text per digest).
        guard body.utf8.count == 44, let digest = Base64.decode(body), digest.count == 32 else { return nil }
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
}
