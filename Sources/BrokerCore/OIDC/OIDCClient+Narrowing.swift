import BrokerProtocol
import BrokerStore

extension OIDCClient {
    /// A narrowed token (RFC 6749 §6 with a narrower `scope`, RFC 8707 `resource`, an `audience`):
    /// one refresh with the account's refresh token, answered with a set whose access token is the
    /// narrowed one and whose refresh token is the one to keep (rotated, or the old one). The caller
    /// must store that refresh token as the account's before serving the access token.
    public func refresh(
        _ tokens: TokenSet, narrowedTo narrowing: TokenNarrowing, metadata: ProviderMetadata, client: ClientConfiguration,
        previousSubject: String? = nil
    ) async throws(OIDCError) -> TokenSet {
        let request = Self.narrowedRequest(narrowing, issuer: metadata.issuer, configuredScopes: client.scopes)
        let identity = try tokens.previousIDTokenIdentity()
        let response = try await refreshRequest(tokens, identity: identity, metadata: metadata, client: client) {
            // A scope-only narrowing stays at the account's resource (RFC 8707 §2.2).
            .refreshToken(
                $0, scope: request.scope, resources: narrowing.resources.isEmpty ? client.resources : request.resources,
                audience: narrowing.audience)
        }
        try await checkRefreshAnswer(
            response, previousIdentity: identity, metadata: metadata, client: client, previousSubject: previousSubject)
        return TokenSet(response, requestedScope: request.scope, receivedAt: time.now()).carryingOver(from: tokens)
    }

    /// The `scope` and `resource` fields of a narrowed refresh. Microsoft Entra takes no `resource`
    /// on its v2.0 endpoints: a resource is asked for as the scope `RESOURCE/.default`, which one
    /// refresh token can do for several resources. Elsewhere a resource-only request restates the
    /// configured scope, so only the audience of the token changes.
    static func narrowedRequest(_ narrowing: TokenNarrowing, issuer: String, configuredScopes: [String])
        -> (scope: String?, resources: [String])
    {
        if EntraIssuer.isEntra(issuer), !narrowing.resources.isEmpty {
            let scopes = narrowing.scopes + narrowing.resources.map { Self.entraDefaultScope(of: $0) }
            return (scopes.joined(separator: " "), [])
        }
        let scopes = narrowing.scopes.isEmpty ? configuredScopes : narrowing.scopes
        return (scopes.isEmpty ? nil : scopes.joined(separator: " "), narrowing.resources)
    }

    /// `https://graph.microsoft.com` → `https://graph.microsoft.com/.default` (one slash between).
    static func entraDefaultScope(of resource: String) -> String {
        (resource.hasSuffix("/") ? String(resource.dropLast()) : resource) + "/.default"
    }
}
