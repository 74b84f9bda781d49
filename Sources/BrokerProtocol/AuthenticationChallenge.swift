/// One challenge of a `WWW-Authenticate` header (RFC 9110 §11.6.1): a scheme and either a token68
/// or auth-params. `parse` reads the whole grammar — several challenges in one field or in several
/// fields, quoted strings with commas and escapes, parameter names in any case — because a
/// resource may offer `Basic realm="a, b", Bearer resource_metadata="…"` and splitting on commas
/// would misread it. Bounded: what lies past `maximumBytes`, `maximumChallenges` or
/// `maximumParameters`, or after a syntax error, is not read (what was read before is kept).
public struct AuthenticationChallenge: Sendable, Equatable {
    /// Lower-cased (schemes are case-insensitive).
    public var scheme: String
    public var token68: String?
    /// Names lower-cased; the first of a repeated name wins.
    public var parameters: [String: String]

    public init(scheme: String, token68: String? = nil, parameters: [String: String] = [:]) {
        self.scheme = scheme
        self.token68 = token68
        self.parameters = parameters
    }

    public static let maximumBytes = 8192
    public static let maximumChallenges = 16
    public static let maximumParameters = 32

    /// Every challenge of the header's fields, in order.
    public static func parse(_ fields: [String]) -> [AuthenticationChallenge] {
        let joined = fields.joined(separator: ", ")
        guard joined.utf8.count <= maximumBytes else { return [] }
        var reader = Reader(bytes: Array(joined.utf8))
        var challenges: [AuthenticationChallenge] = []
        while challenges.count < maximumChallenges, let challenge = reader.challenge() { challenges.append(challenge) }
        return challenges
    }

    /// The first challenge of `scheme` (e.g. "bearer") among the header's fields.
    public static func first(_ scheme: String, in fields: [String]) -> AuthenticationChallenge? {
        parse(fields).first { $0.scheme == scheme.lowercased() }
    }
}

/// The grammar, over bytes (every delimiter is ASCII).
private struct Reader {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`, after any empty list elements.
    mutating func challenge() -> AuthenticationChallenge? {
        skip { $0 == UInt8(ascii: ",") || Self.isWhitespace($0) }
        guard let scheme = token() else { return nil }
        var challenge = AuthenticationChallenge(scheme: scheme.lowercased())
        guard index < bytes.count, bytes[index] == UInt8(ascii: " ") else { return challenge }
        skip(Self.isWhitespace)
        if let token68 = token68() {
            challenge.token68 = token68
            return challenge
        }
        while challenge.parameters.count < AuthenticationChallenge.maximumParameters {
            let start = index
            guard let (name, value) = parameter() else {
                index = start  // not a parameter: the next challenge's scheme (or the end)
                break
            }
            if challenge.parameters[name] == nil { challenge.parameters[name] = value }
            skip(Self.isWhitespace)
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { break }
            skip { $0 == UInt8(ascii: ",") || Self.isWhitespace($0) }
        }
        return challenge
    }

    /// `token68` when it is the whole rest of this challenge (followed by the end or a comma):
    /// `name=value` shares its first characters, but has more after the "=".
    private mutating func token68() -> String? {
        let start = index
        while index < bytes.count, Self.isToken68(bytes[index]) { index += 1 }
        let body = index
        while index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
        let end = index
        skip(Self.isWhitespace)
        if body > start, index == bytes.count || bytes[index] == UInt8(ascii: ",") {
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
        index = start
        return nil
    }

    /// `token BWS "=" BWS ( token / quoted-string )`.
    private mutating func parameter() -> (String, String)? {
        guard let name = token() else { return nil }
        skip(Self.isWhitespace)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return nil }
        index += 1
        skip(Self.isWhitespace)
        guard let value = index < bytes.count && bytes[index] == UInt8(ascii: "\"") ? quotedString() : token() else { return nil }
        return (name.lowercased(), value)
    }

    /// `DQUOTE *( qdtext / quoted-pair ) DQUOTE`, unescaped.
    private mutating func quotedString() -> String? {
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                value.append(bytes[index])
                index += 1
            case 0x00..<0x20 where byte != 0x09, 0x7F: return nil
            default: value.append(byte)
            }
        }
        return nil
    }

    private mutating func token() -> String? {
        let start = index
        while index < bytes.count, Self.isTokenCharacter(bytes[index]) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    private mutating func skip(_ predicate: (UInt8) -> Bool) {
        while index < bytes.count, predicate(bytes[index]) { index += 1 }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// tchar (RFC 9110 §5.6.2).
    static func isTokenCharacter(_ byte: UInt8) -> Bool { isAlphanumeric(byte) || tokenSymbols.contains(byte) }

    /// token68's characters before its "=" padding (RFC 9110 §11.2).
    static func isToken68(_ byte: UInt8) -> Bool { isAlphanumeric(byte) || token68Symbols.contains(byte) }

    private static let tokenSymbols = Array("!#$%&'*+-.^_`|~".utf8)
    private static let token68Symbols = Array("-._~+/".utf8)

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
