import BrokerCrypto
import Foundation

// Narrowed refreshes: a `scope` narrower than the grant (RFC 6749 §6), kept or — like
// django-oauth-toolkit — made the grant for good (`narrowsGrantOnRefresh`), and RFC 8707 `resource`.
extension MockProvider {
    /// The scope a refresh is answered with, recording what was asked. Without `scope`: the
    /// grant. With one: a subset of the grant, else `invalid_scope` — unless the grant narrows,
    /// then what is left of it (that provider answers the plain refresh with less than it asks).
    /// Nothing changes here: the caller narrows the family's grant once the refresh token is redeemed.
    func narrowedScope(_ fields: [String: String], family: Int) -> Result<String?, Refusal> {
        state.withLock { state in
            state.stats.refreshScopes.append(fields["scope"] ?? "-")
            let granted = state.families[family].scope
            guard let asked = fields["scope"] else { return .success(granted) }
            let grant = Set(granted.split(separator: " "))
            let kept = asked.split(separator: " ").filter { grant.contains($0) }
            let narrows = state.configuration.narrowsGrantOnRefresh
            guard !kept.isEmpty, narrows || kept.count == asked.split(separator: " ").count else {
                return .failure(Refusal(MockResponse.oauthError("invalid_scope", description: "scope exceeds the grant")))
            }
            return .success(kept.joined(separator: " "))
        }
    }

    /// The refresh's RFC 8707 `resource` (one, as this mock supports), or `invalid_target` for an
    /// unknown one; nil when none was named or the mock has no resources configured.
    func requestedResource(_ fields: [String: String]) -> Result<String?, Refusal> {
        state.withLock { state in
            state.stats.refreshResources.append(fields["resource"] ?? "-")
            guard let resource = fields["resource"], !state.configuration.resources.isEmpty else { return .success(nil) }
            guard state.configuration.resources.contains(resource) else {
                return .failure(Refusal(MockResponse.oauthError("invalid_target", description: "unknown resource")))
            }
            return .success(resource)
        }
    }

    /// A JWT access token for `resource`: `aud` is the resource (RFC 8707 §2.2).
    func mintResourceAccessToken(resource: String, scope: String) throws -> String {
        let (configuration, key) = try state.withLock { state in (state.configuration, try signingKey(&state)) }
        let now = Int(Date().timeIntervalSince1970)
        let claims: [String: Any] = [
            "iss": issuer, "sub": configuration.subject, "aud": resource, "client_id": configuration.clientID,
            "scope": scope, "iat": now, "exp": now + configuration.lifetime(resource: resource),
            "jti": Self.randomToken("at"),
        ]
        return try key.sign(header: ["typ": "at+jwt"], claims: claims)
    }
}

extension MockProviderConfiguration {
    /// The access token lifetime for a token of `resource` (nil: the plain token).
    func lifetime(resource: String?) -> Int {
        resource.flatMap { resourceTokenLifetimes[$0] } ?? accessTokenLifetime
    }
}
