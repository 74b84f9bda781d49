/// One `name=value` pair of a query string or an `application/x-www-form-urlencoded` body.
public struct FormField: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// `application/x-www-form-urlencoded` (WHATWG URL §5, used by RFC 6749 Appendix B) and
/// query strings.
///
/// Encoding writes space as `+` and percent-encodes (uppercase hex, UTF-8) every byte outside
/// the unreserved set `A–Z a–z 0–9 - . _ ~`. Decoding is strict: `+` is a space, `%` must be
/// followed by two hex digits, and the result must be valid UTF-8, otherwise it throws.
public enum FormURLEncoding {
    /// Why a form or query string could not be decoded.
    public enum DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        case invalidPercentEscape
        case invalidUTF8

        public var description: String {
            switch self {
            case .invalidPercentEscape: "a '%' in the form data is not followed by two hex digits"
            case .invalidUTF8: "form data does not decode to valid UTF-8"
            }
        }
    }

    /// `name=value&…` with each part encoded by `encodeComponent`.
    public static func encode(_ fields: [FormField]) -> String {
        fields.map { encodeComponent($0.name) + "=" + encodeComponent($0.value) }.joined(separator: "&")
    }

    /// Encodes one name or value. Also what RFC 6749 §2.3.1 applies to the client id and secret
    /// before HTTP Basic authentication.
    public static func encodeComponent(_ string: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else if byte == HTTPSyntax.space {
                out.append(UInt8(ascii: "+"))
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes `name=value&…`. Empty pieces (`a=1&&b=2`) are skipped; a piece without `=` has
    /// an empty value. Order and duplicates are kept.
    public static func decode(_ string: some StringProtocol) throws(DecodingError) -> [FormField] {
        var fields: [FormField] = []
        for piece in string.utf8.split(separator: UInt8(ascii: "&")) {
            let parts = piece.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decodeComponent(parts[0])
            let value = parts.count > 1 ? try decodeComponent(parts[1]) : ""
            fields.append(FormField(name, value))
        }
        return fields
    }

    /// Decodes one component: `+` → space, `%XX` → byte, then UTF-8.
    public static func decodeComponent<C: Collection<UInt8>>(_ bytes: C) throws(DecodingError) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                out.append(HTTPSyntax.space)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(HTTPSyntax.hexValue),
                    let low = iterator.next().flatMap(HTTPSyntax.hexValue)
                else { throw .invalidPercentEscape }
                out.append(UInt8(high << 4 | low))
            default:
                out.append(byte)
            }
        }
        guard let string = String(validating: out, as: UTF8.self) else { throw .invalidUTF8 }
        return string
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}

extension HTTPRequest {
    /// The decoded query string fields (empty when there is no query).
    public func queryFields() throws(FormURLEncoding.DecodingError) -> [FormField] {
        guard let query else { return [] }
        return try FormURLEncoding.decode(query)
    }

    /// The first value of the query field `name`, or nil when absent or undecodable.
    public func queryValue(_ name: String) -> String? {
        (try? queryFields())?.first { $0.name == name }?.value
    }

    /// The decoded `application/x-www-form-urlencoded` body.
    public func formFields() throws(FormURLEncoding.DecodingError) -> [FormField] {
        guard let string = String(validating: body, as: UTF8.self) else { throw .invalidUTF8 }
        return try FormURLEncoding.decode(string)
    }
}
