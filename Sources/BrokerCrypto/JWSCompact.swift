import WireFormats

/// The protected header of a JWS: the members the broker reads.
public struct JOSEHeader: Sendable, Equatable {
    /// The algorithm name exactly as sent; check it with `JWSAlgorithm(rawValue:)`.
    public let alg: String
    public let kid: String?
    public let typ: String?

    public init(alg: String, kid: String? = nil, typ: String? = nil) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
    }
}

/// A JWS in compact serialization (RFC 7515 §7.1), split and decoded but not yet verified.
public struct JWSCompact: Sendable {
    /// Longer inputs are refused before any decoding (ID tokens are a few KiB).
    public static let maximumLength = 256 * 1024

    public let header: JOSEHeader
    public let payload: [UInt8]
    /// `ASCII(BASE64URL(header) || '.' || BASE64URL(payload))`, the bytes the signature covers.
    public let signingInput: [UInt8]
    public let signature: [UInt8]

    /// Splits `compact` into exactly three strict-base64url parts and decodes the header, which
    /// must be a JSON object with a string `alg`. A `crit` header is refused: the broker
    /// understands no JWS extension, and RFC 7515 §4.1.11 says to reject what it cannot honour.
    public static func parse(_ compact: String) throws(JWSError) -> JWSCompact {
        let bytes = Array(compact.utf8)
        guard bytes.count <= maximumLength else {
            throw .malformed("\(bytes.count) bytes exceeds the \(maximumLength)-byte limit")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw .malformed("expected 3 dot-separated parts, found \(parts.count)")
        }
        let headerBytes = try decodePart(parts[0], name: "header")
        let payload = try decodePart(parts[1], name: "payload")
        let signature = try decodePart(parts[2], name: "signature")
        return JWSCompact(
            header: try decodeHeader(headerBytes), payload: payload,
            signingInput: Array(bytes[..<parts[1].endIndex]), signature: signature)
    }

    private static func decodePart(_ part: ArraySlice<UInt8>, name: String) throws(JWSError) -> [UInt8] {
        do {
            return try Base64URL.decode(part)
        } catch {
            throw .malformed("the \(name) is not unpadded base64url")
        }
    }

    private static func decodeHeader(_ bytes: [UInt8]) throws(JWSError) -> JOSEHeader {
        let fields = try JOSEJSON.decode(
            HeaderFields.self, from: bytes, what: "the header",
            else: .malformed("the header is not a JSON object with a string \"alg\""))
        guard fields.crit == nil else { throw .malformed("the header has a \"crit\" extension the broker cannot honour") }
        return JOSEHeader(alg: fields.alg, kid: fields.kid, typ: fields.typ)
    }
}

/// The header members as JSON; unknown members are ignored, as RFC 7515 allows.
private struct HeaderFields: Decodable {
    let alg: String
    let kid: String?
    let typ: String?
    let crit: [String]?
}
