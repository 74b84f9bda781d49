import COpenSSL

/// Errors from BrokerCrypto. None carries secret material: only lengths, versions and
/// OpenSSL's own error strings.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An OpenSSL call failed; `reason` is OpenSSL's error queue rendered as text.
    case openSSL(function: String, reason: String)
    /// Base64url text had a character outside the alphabet, padding, or an impossible length.
    case invalidBase64URL
    /// A sealed envelope was shorter than version + nonce + tag, or had an unknown version byte.
    case malformedEnvelope(String)
    /// The GCM tag did not verify: wrong key, wrong associated data, or tampered bytes.
    case authenticationFailed
    /// A key of the wrong size was supplied.
    case invalidKeyLength(expected: Int, actual: Int)
    /// A KDF was called with parameters it cannot use.
    case invalidParameters(String)

    public var description: String {
        switch self {
        case .openSSL(let function, let reason):
            "OpenSSL \(function) failed: \(reason)"
        case .invalidBase64URL:
            "invalid base64url text (expected unpadded characters A-Z a-z 0-9 - _)"
        case .malformedEnvelope(let why):
            "malformed sealed value: \(why)"
        case .authenticationFailed:
            "sealed value failed authentication (wrong key, wrong context, or tampered data)"
        case .invalidKeyLength(let expected, let actual):
            "key must be \(expected) bytes, got \(actual)"
        case .invalidParameters(let why):
            "invalid crypto parameters: \(why)"
        }
    }

    /// Drains OpenSSL's thread-local error queue into one line, so the reason travels with the error.
    static func fromOpenSSL(_ function: String) -> CryptoError {
        .openSSL(function: function, reason: OpenSSLErrorQueue.drain())
    }
}

/// Reads and clears OpenSSL's per-thread error queue.
public enum OpenSSLErrorQueue {
    public static func drain() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error reported" : messages.joined(separator: "; ")
    }
}
