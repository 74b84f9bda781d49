/// A `WWW-Authenticate` challenge of the Bearer (RFC 6750 §3) or DPoP (RFC 9449 §7.1) scheme,
/// read from a resource server's 401 or 403: what the daemon's MCP relay, `authctl curl` and
/// `authctl mcp` need to tell an expired token from a missing scope (step-up, RFC 6750 §3.1).
///
/// The header is the resource server's text: parsed with bounds (its first 8 KiB, 32 parameters,
/// no recursion), values kept as given (quoted-string escapes undone), nothing interpreted.
public struct BearerChallenge: Sendable, Equatable {
    /// `bearer` or `dpop` (lower-cased).
    public var scheme: String
    /// The auth-params by lower-cased name (RFC 9110 §11.2), first occurrence kept.
    public var parameters: [String: String]

    public init(scheme: String, parameters: [String: String]) {
        self.scheme = scheme
        self.parameters = parameters
    }

    /// `error` (`invalid_token`, `insufficient_scope`…).
    public var error: String? { parameters["error"] }
    /// `scope`: the scopes the resource needs (space-separated), on a step-up challenge.
    public var scope: String? { parameters["scope"] }
    /// `resource_metadata` (RFC 9728 §5.1).
    public var resourceMetadata: String? { parameters["resource_metadata"] }

    /// True for `error="insufficient_scope"`: the token is valid but lacks a scope (RFC 6750 §3.1).
    public var isInsufficientScope: Bool { error == "insufficient_scope" }

    /// The scopes of `scope` that are RFC 6749 §3.3 scope-tokens (at most 32); others are dropped.
    public var scopes: [String] {
        guard let scope else { return [] }
        return Array(scope.split(separator: " ").map(String.init).filter(TokenNarrowing.isScopeToken).prefix(32))
    }

    /// The longest header text read; the rest is ignored.
    public static let maximumHeaderLength = 8 * 1024
    static let maximumParameters = 32

    /// Every Bearer or DPoP challenge in the header values (one header may hold several
    /// challenges, and a response may repeat the field), in order. Other schemes are skipped.
    public static func parse(_ values: [String]) -> [BearerChallenge] {
        var challenges: [BearerChallenge] = []
        for value in values { challenges += parse(value) }
        return challenges
    }

    /// The challenges of one header value.
    public static func parse(_ value: String) -> [BearerChallenge] {
        var scanner = ChallengeScanner(Array(value.utf8.prefix(maximumHeaderLength)))
        var found: [BearerChallenge] = []
        var current: BearerChallenge?
        while let item = scanner.next() {
            switch item {
            case .scheme(let scheme):
                if let current, ["bearer", "dpop"].contains(current.scheme) { found.append(current) }
                current = BearerChallenge(scheme: scheme.lowercased(), parameters: [:])
            case .parameter(let name, let value):
                guard current != nil, current!.parameters.count < maximumParameters else { continue }
                if current!.parameters[name.lowercased()] == nil { current!.parameters[name.lowercased()] = value }
            }
        }
        if let current, ["bearer", "dpop"].contains(current.scheme) { found.append(current) }
        return found
    }

    /// The first challenge that asks for more scopes, if any.
    public static func stepUp(in values: [String]) -> BearerChallenge? {
        parse(values).first(where: \.isInsufficientScope)
    }
}

/// Splits challenge text into schemes and `name=value` parameters (RFC 9110 §11: token,
/// token68 or quoted-string values). A token68 credential is skipped; malformed text is skipped
/// up to the next comma, so a broken parameter never hides the ones after it.
struct ChallengeScanner {
    enum Item: Equatable {
        case scheme(String)
        case parameter(String, String)
    }

    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> Item? {
        while index < bytes.count {
            skip { $0 == 32 || $0 == 9 || $0 == 44 }
            guard index < bytes.count else { return nil }
            let token = readToken()
            guard !token.isEmpty else {
                skipToComma()
                continue
            }
            skip { $0 == 32 || $0 == 9 }
            if index < bytes.count, bytes[index] == UInt8(ascii: "=") {
                index += 1
                skip { $0 == 32 || $0 == 9 }
                // token68 padding ("abc==") has no value after the "=": not a parameter.
                guard let value = readValue() else {
                    skipToComma()
                    continue
                }
                return .parameter(token, value)
            }
            return .scheme(token)
        }
        return nil
    }

    private mutating func skip(while predicate: (UInt8) -> Bool) {
        while index < bytes.count, predicate(bytes[index]) { index += 1 }
    }

    private mutating func skipToComma() {
        skip { $0 != 44 }
    }

    /// RFC 9110 tchar: letters, digits and ``!#$%&'*+-.^_`|~``.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }

    private mutating func readToken() -> String {
        let start = index
        skip(while: Self.isTokenByte)
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func readValue() -> String? {
        guard index < bytes.count else { return nil }
        guard bytes[index] == UInt8(ascii: "\"") else {
            let token = readToken()
            return token.isEmpty ? nil : token
        }
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return String(decoding: value, as: UTF8.self) }
            if byte == UInt8(ascii: "\\"), index < bytes.count {
                value.append(bytes[index])
                index += 1
            } else {
                value.append(byte)
            }
        }
        return nil  // unterminated
    }
}
