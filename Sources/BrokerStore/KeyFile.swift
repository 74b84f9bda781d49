import BrokerCrypto
import WireFormats

/// The key file format: 32 random bytes as ONE line of standard base64 (RFC 4648 §4, padded:
/// 44 characters), an optional trailing newline, nothing else. One line so that
/// `systemd-creds encrypt` can wrap it and `openssl rand -base64 32` can make it.
public enum KeyFile {
    /// Reads and validates a key file (mode, owner, format).
    public static func read(_ path: String) throws(StoreError) -> SymmetricKey {
        try parse(SecureFiles.readSecretFile(path), path: path)
    }

    /// Parses key file contents. `path` only names the file in errors.
    public static func parse(_ contents: Secret, path: String) throws(StoreError) -> SymmetricKey {
        var text = contents.revealBytes()
        defer { text.withUnsafeMutableBytes { wipe($0) } }
        if text.last == UInt8(ascii: "\n") { text.removeLast() }
        let encodedLength = 44  // 4·⌈32/3⌉
        guard text.count == encodedLength else {
            throw .invalidKeyFile(
                path: path, reason: "expected one line of \(encodedLength) base64 characters, found \(text.count) bytes")
        }
        // Map standard base64 onto base64url and let the strict decoder check alphabet and trailing bits.
        var unpadded = text[...]
        while unpadded.count > 42, unpadded.last == UInt8(ascii: "=") { unpadded.removeLast() }
        guard !unpadded.contains(where: { "-_=".utf8.contains($0) }) else {
            throw .invalidKeyFile(path: path, reason: "not standard base64")
        }
        var urlText = swapAlphabet(unpadded)
        defer { urlText.withUnsafeMutableBytes { wipe($0) } }
        guard var bytes = try? Base64URL.decode(String(decoding: urlText, as: UTF8.self)) else {
            throw .invalidKeyFile(path: path, reason: "not standard base64")
        }
        defer { bytes.withUnsafeMutableBytes { wipe($0) } }
        guard let key = try? SymmetricKey(bytes: bytes) else {
            throw .invalidKeyFile(path: path, reason: "decodes to \(bytes.count) bytes, not \(SymmetricKey.byteCount)")
        }
        return key
    }

    /// The key file text for `key`: one base64 line with a newline.
    public static func encode(_ key: SymmetricKey) -> Secret {
        var url = Array(Base64URL.encode(key.secret.revealBytes()).utf8)
        defer { url.withUnsafeMutableBytes { wipe($0) } }
        var line = swapAlphabet(url)
        defer { line.withUnsafeMutableBytes { wipe($0) } }
        while line.count % 4 != 0 { line.append(UInt8(ascii: "=")) }
        line.append(UInt8(ascii: "\n"))
        return Secret(line)
    }

    /// Standard base64 and base64url differ only in two characters: '+' ↔ '-' and '/' ↔ '_'.
    private static func swapAlphabet(_ text: some Sequence<UInt8>) -> [UInt8] {
        text.map {
            switch $0 {
            case UInt8(ascii: "+"): UInt8(ascii: "-")
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "/"): UInt8(ascii: "_")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: $0
            }
        }
    }

    /// Generates a fresh key into a NEW file (0600, fsynced; the directory is created 0700).
    /// Fails if the file exists, so two racing first starts cannot overwrite each other's key.
    public static func generate(at path: String) throws(StoreError) -> SymmetricKey {
        let key: SymmetricKey
        do { key = try SymmetricKey.generate() } catch {
            throw .crypto(error as? CryptoError ?? .openSSL(function: "getrandom", reason: "\(error)"))
        }
        try SecureFiles.writeNewSecretFile(path, contents: encode(key))
        return key
    }

    /// Writes `key` to `path` atomically (temporary 0600 file, fsync, rename, fsync directory).
    public static func write(_ key: SymmetricKey, to path: String) throws(StoreError) {
        try SecureFiles.replaceSecretFile(path, contents: encode(key))
    }
}
