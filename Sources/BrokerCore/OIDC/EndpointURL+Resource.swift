/// The URL rules of protected resources and the well-known documents around them, in one place:
/// the canonical resource URI (RFC 8707 §2, the MCP authorization spec's "canonical server URI")
/// and the path-inserted well-known URLs of RFC 8414 §3.1 and RFC 9728 §3.1. Built only on
/// `EndpointURL`'s parse, so every rule of that parser (no user-info, no fragment, ASCII) holds.
extension EndpointURL {
    /// `text` as a canonical resource URI: scheme and host lower-cased (by the parse), the default
    /// port dropped, no fragment, https or loopback http. The path and query are kept as written:
    /// they are the server's to interpret, and a rewritten URI would not match its metadata.
    static func canonicalResource(_ text: String, what: String = "resource URL") throws(OIDCError) -> EndpointURL {
        var url = try EndpointURL.secure(text, what: what)
        if (url.scheme == "https" && url.port == 443) || (url.scheme == "http" && url.port == 80) { url.port = nil }
        return url
    }

    /// True when `self` and `other` name the same resource (RFC 9728 §3.3, after canonicalization):
    /// an empty path and "/" are one path (RFC 3986 §6.2.3), anything else must be identical.
    func isSameResource(as other: EndpointURL) -> Bool {
        func path(_ url: EndpointURL) -> String { url.path.isEmpty ? "/" : url.path }
        return origin == other.origin && path(self) == path(other) && query == other.query
    }

    /// `{origin}/.well-known/{suffix}{path}[?query]`: the well-known document of this URL with its
    /// path inserted after the host (RFC 8414 §3.1, RFC 9728 §3.1), a terminating "/" removed.
    func pathInsertedWellKnown(_ suffix: String) -> String {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        return origin + "/.well-known/" + suffix + trimmed + (query.map { "?\($0)" } ?? "")
    }

    /// `{origin}/.well-known/{suffix}`: the same document at the root.
    func rootWellKnown(_ suffix: String) -> String { origin + "/.well-known/" + suffix }

    /// The URL with `/.well-known/{suffix}` appended to its path (OpenID Connect Discovery §4.1).
    func appendedWellKnown(_ suffix: String) -> String {
        origin + (path.hasSuffix("/") ? String(path.dropLast()) : path) + "/.well-known/" + suffix
    }

    /// Where a resource's Protected Resource Metadata may be (RFC 9728 §3.1, MCP 2025-11-25
    /// "Protected Resource Metadata Discovery"): path-inserted first, then at the root; one URL
    /// when the resource has no path.
    var protectedResourceMetadataURLs: [String] {
        let inserted = pathInsertedWellKnown(Self.protectedResourceSuffix)
        let root = rootWellKnown(Self.protectedResourceSuffix)
        return inserted == root ? [root] : [inserted, root]
    }

    /// Where an authorization server's metadata may be, in the MCP spec's order ("Authorization
    /// Server Metadata Discovery"): for an issuer with a path, RFC 8414 path-inserted, OpenID
    /// Connect path-inserted, OpenID Connect appended; without one, RFC 8414 then OpenID Connect.
    var authorizationServerMetadataURLs: [String] {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        guard !trimmed.isEmpty else {
            return [rootWellKnown(Self.authorizationServerSuffix), rootWellKnown(Self.openIDSuffix)]
        }
        return [
            pathInsertedWellKnown(Self.authorizationServerSuffix), pathInsertedWellKnown(Self.openIDSuffix),
            appendedWellKnown(Self.openIDSuffix),
        ]
    }

    static let protectedResourceSuffix = "oauth-protected-resource"
    static let authorizationServerSuffix = "oauth-authorization-server"
    static let openIDSuffix = "openid-configuration"
}
