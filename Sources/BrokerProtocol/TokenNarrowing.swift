/// What a caller asks of a narrowed token (`GET /v1/accounts/{name}/token?scope=…&resource=…&audience=…`,
/// `authctl token NAME --scope S --resource URI --audience A`): a subset of the account's scopes
/// (RFC 6749 §6), other resources (RFC 8707) and an audience (Auth0). Normalized — scopes and
/// resources sorted and deduplicated — so equal requests are one cache key. Bounded at the edge:
/// the daemon and authctl both build it only through `init(scopes:resources:audience:)`.
public struct TokenNarrowing: Hashable, Sendable {
    public static let maximumScopes = 32
    public static let maximumResources = 4
    /// Per scope token, resource URI and audience, in bytes.
    public static let maximumLength = 512

    public let scopes: [String]
    public let resources: [String]
    public let audience: String?

    /// Nothing narrowed: the account's own token.
    public static let none = try! TokenNarrowing(scopes: [], resources: [], audience: nil)

    public var isEmpty: Bool { scopes.isEmpty && resources.isEmpty && audience == nil }

    /// Checks every value; the error says which one and what is accepted.
    public init(scopes: [String], resources: [String], audience: String?) throws(NarrowingError) {
        guard scopes.count <= Self.maximumScopes else { throw .tooMany("scope", Self.maximumScopes) }
        guard resources.count <= Self.maximumResources else { throw .tooMany("resource", Self.maximumResources) }
        for scope in scopes where !Self.isScopeToken(scope) { throw .invalidScope(Self.shown(scope)) }
        for resource in resources where !Self.isResource(resource) { throw .invalidResource(Self.shown(resource)) }
        if let audience, !Self.isAudience(audience) { throw .invalidAudience(Self.shown(audience)) }
        self.scopes = Set(scopes).sorted()
        self.resources = Set(resources).sorted()
        self.audience = audience
    }

    /// From the query's space-separated `scope` and `resource` (the form of RFC 6749 §3.3) and `audience`.
    public init(scope: String?, resource: String?, audience: String?) throws(NarrowingError) {
        try self.init(
            scopes: try Self.words(scope, "scope", Self.maximumScopes),
            resources: try Self.words(resource, "resource", Self.maximumResources), audience: audience)
    }

    /// The query fields, in a fixed order (empty ones left out).
    public var queryFields: [(String, String)] {
        var fields: [(String, String)] = []
        if !scopes.isEmpty { fields.append(("scope", scopes.joined(separator: " "))) }
        if !resources.isEmpty { fields.append(("resource", resources.joined(separator: " "))) }
        if let audience { fields.append(("audience", audience)) }
        return fields
    }

    private static func words(_ text: String?, _ name: String, _ limit: Int) throws(NarrowingError) -> [String] {
        guard let text else { return [] }
        // Bounded before splitting: a longer value cannot hold `limit` valid tokens.
        guard text.utf8.count <= (maximumLength + 1) * limit else { throw .tooMany(name, limit) }
        return text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    }

    /// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ).
    public static func isScopeToken(_ scope: String) -> Bool {
        !scope.isEmpty && scope.utf8.count <= maximumLength
            && scope.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    /// RFC 8707 §2: an absolute URI (a scheme, then `:`), no fragment; printable ASCII only.
    static func isResource(_ resource: String) -> Bool {
        let bytes = Array(resource.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength, bytes.allSatisfy({ (0x21...0x7E).contains($0) }),
            !bytes.contains(UInt8(ascii: "#")), let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            colon + 1 < bytes.count
        else { return false }
        // RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
        let scheme = bytes[..<colon]
        return isLetter(scheme.first!)
            && scheme.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    /// An identifier or URI: printable ASCII without spaces.
    static func isAudience(_ audience: String) -> Bool {
        !audience.isEmpty && audience.utf8.count <= maximumLength && audience.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// A refused value as shown in a message: cut short, control characters replaced.
    static func shown(_ value: String) -> String {
        let cut = value.unicodeScalars.prefix(64).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) }
        return String(cut) + (value.unicodeScalars.count > 64 ? "…" : "")
    }
}

/// The one-line form a restricted socket's grant names a narrowing in (`authctl socket add …
/// --narrowing SPEC`, `narrowings` in `POST /v1/sockets`, the vault row, `socket list`):
/// space-separated `scope=S`, `resource=URI` and `audience=A` fields, each scope and resource its
/// own field (none of them holds a space), e.g. `scope=openid scope=profile resource=https://api.example.com/`.
/// Written normalised (sorted), so equal narrowings have one spelling.
extension TokenNarrowing: CustomStringConvertible {
    public var description: String {
        (scopes.map { "scope=" + $0 } + resources.map { "resource=" + $0 } + (audience.map { ["audience=" + $0] } ?? []))
            .joined(separator: " ")
    }

    /// Parses `description`'s form; refuses an unknown field, a second audience and an empty narrowing.
    public init(spec: String) throws(NarrowingError) {
        var (scopes, resources, audience): ([String], [String], String?) = ([], [], nil)
        for field in spec.split(separator: " ", omittingEmptySubsequences: true) {
            guard let equals = field.firstIndex(of: "=") else { throw .invalidSpec(Self.shown(spec)) }
            let value = String(field[field.index(after: equals)...])
            switch field[..<equals] {
            case "scope": scopes.append(value)
            case "resource": resources.append(value)
            case "audience" where audience == nil: audience = value
            default: throw .invalidSpec(Self.shown(spec))
            }
        }
        guard !scopes.isEmpty || !resources.isEmpty || audience != nil else { throw .invalidSpec(Self.shown(spec)) }
        try self.init(scopes: scopes, resources: resources, audience: audience)
    }
}

/// A narrowed token request that fails validation.
public enum NarrowingError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooMany(String, Int)
    case invalidScope(String)
    case invalidResource(String)
    case invalidAudience(String)
    /// Not a narrowing in `TokenNarrowing(spec:)`'s form.
    case invalidSpec(String)

    public var description: String {
        switch self {
        case .tooMany(let name, let limit):
            "At most \(limit) '\(name)' values may be asked for at once."
        case .invalidScope(let scope):
            "'\(scope)' is not a scope: use 1 to \(TokenNarrowing.maximumLength) printable ASCII characters without spaces, quotes or backslashes (RFC 6749 §3.3)."
        case .invalidResource(let resource):
            "'\(resource)' is not a resource: use an absolute URI such as https://api.example.com/ without a fragment (RFC 8707 §2)."
        case .invalidAudience(let audience):
            "'\(audience)' is not an audience: use 1 to \(TokenNarrowing.maximumLength) printable ASCII characters without spaces."
        case .invalidSpec(let spec):
            "'\(spec)' is not a narrowing: use space-separated scope=S, resource=URI and audience=A fields "
                + "(at most one audience), e.g. 'scope=openid resource=https://api.example.com/'."
        }
    }
}
