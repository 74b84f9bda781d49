/// A `WWW-Authenticate` challenge of the Bearer (RFC 6750 §3) or DPoP (RFC 9449 §7.1) scheme,
/// read from a resource server's 401 or 403: what the daemon's MCP relay, `authctl curl` and
/// `authctl mcp` need to tell an expired token from a missing scope (step-up, RFC 6750 §3.1).
///
/// The header is the resource server's text, parsed by `AuthenticationChallenge` (bounded);
/// values are kept as given (quoted-string escapes undone), nothing interpreted.
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

    /// Every Bearer or DPoP challenge in the header values, in order, as `AuthenticationChallenge`
    /// reads them (the whole RFC 9110 grammar, bounded); other schemes are skipped.
    public static func parse(_ values: [String]) -> [BearerChallenge] {
        AuthenticationChallenge.parse(values).filter { $0.scheme == "bearer" || $0.scheme == "dpop" }
            .map { BearerChallenge(scheme: $0.scheme, parameters: $0.parameters) }
    }

    /// The challenges of one header value.
    public static func parse(_ value: String) -> [BearerChallenge] { parse([value]) }

    /// The first challenge that asks for more scopes, if any.
    public static func stepUp(in values: [String]) -> BearerChallenge? {
        parse(values).first(where: \.isInsufficientScope)
    }
}
