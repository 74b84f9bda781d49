/// How an account's token requests — the code exchange and the refresh — are encoded. The OAuth
/// engine builds every token request from this one value (BrokerCore's `TokenEndpointGrant`), never from
/// the provider's name.
public enum TokenRequestFormat: String, Codable, Sendable, CaseIterable {
    /// RFC 6749 §4.1.3 / §6: `application/x-www-form-urlencoded`, client authentication per §2.3,
    /// a `token_type` required in the answer. The default.
    case form
    /// A JSON body, as WorkOS User Management's `POST /user_management/authenticate` takes it:
    /// `client_id`, `grant_type`, then `code` + `code_verifier` or `refresh_token` (and
    /// `client_secret` for a confidential client) — no `redirect_uri`, no `scope`. Its answers carry
    /// no `token_type` (read as Bearer) and end a browser session with `session_id` (the access
    /// token's `sid`) at the end-session endpoint instead of an ID token hint.
    case json
}

extension AccountConfiguration {
    /// The scopes an account requests when it names none: `openid` (an OpenID Connect login), except
    /// for `json` accounts — WorkOS User Management issues no ID token, so `openid` (which makes the
    /// login require one) would fail every login — and for accounts of a protected resource
    /// (`resource_url`): their scopes come from the resource's challenge or metadata, and the
    /// authorization server of an MCP server is often plain OAuth (RFC 8414), with no ID token.
    public var defaultScopes: [String] { tokenRequestFormat == .json || resourceURL != nil ? [] : ["openid"] }
}
