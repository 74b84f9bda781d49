import BrokerProtocol

/// What `authctl account add NAME --provider PRESET` fills in for a provider: one row of data per
/// provider (`all`), so the quirks live in one table instead of in each user's command line, and
/// docs/providers.md names the preset of each section. New providers add a row; the expansion
/// (`ProviderPreset+Expansion.swift`) reads only these fields.
///
/// Templates are strings with `{placeholders}`: `{client_id}` (from `--client-id`), the `key` of
/// each of the row's `options` (a domain option expands to the origin, `https://HOST`), and
/// `{issuer_last_segment}` (the last path segment of the issuer, e.g. Shopify's shop id in
/// `https://shopify.com/authentication/4242`). Options the user gives explicitly override the row.
struct ProviderPreset: Sendable {
    /// `--provider NAME`.
    let name: String
    /// One line for `--provider help`.
    let summary: String
    /// The options this preset adds to `account add` (only valid with it).
    let options: [PresetOption]
    /// Where the issuer comes from (`--issuer` overrides).
    let issuer: PresetIssuer
    /// The discovery document's URL when it is not under the issuer (`--discovery-url` overrides).
    var discoveryURL: String? = nil
    /// Scopes requested (`--scope` replaces them all).
    var scopes: [String] = []
    /// Extra authorization parameters (`--param KEY=VALUE` overrides one key).
    var parameters: [String: String] = [:]
    /// The token request encoding (`--token-request-format` overrides).
    var tokenRequestFormat: TokenRequestFormat? = nil
    /// How the client secret is sent (`--token-endpoint-auth-method` overrides); nil: from the metadata.
    var tokenEndpointAuthMethod: TokenEndpointAuthMethod? = nil
    /// Manual endpoints, as templates (each `--…-endpoint` / `--jwks-uri` overrides its own).
    var endpoints = ManualEndpoints()
    /// The loopback redirect host the provider's registration needs (`localhost` for Dex's public
    /// clients and Entra's desktop platform); any redirect option given overrides it.
    var redirectHost: String? = nil
    /// A private-use redirect URI template (`--redirect-uri` or any loopback redirect option
    /// overrides it); nil: the loopback redirect.
    var redirectURI: String? = nil
    /// Sender-constrained tokens (RFC 9449, `--dpop`) for providers that require them; none does yet.
    var dpop = false
    /// The section of docs/providers.md that walks through this provider.
    let docsAnchor: String
    /// The provider keeps the original grant when a refresh names a narrower scope or another
    /// resource (RFC 6749 §6), so narrowed tokens (`authctl token --scope/--resource`) are allowed
    /// without `--allow-narrowing`. Only where the provider documents it.
    var keepsGrantOnNarrowedRefresh = false
    /// The provider takes RFC 8707's `resource` parameter; false: an account's `--resource-url`
    /// is kept but not sent (Entra v2 refuses it and names the resource in the scope instead).
    var sendsResourceParameter = true

    /// The presets, in the order `--provider help` lists them.
    static let all: [ProviderPreset] = [
        ProviderPreset(
            name: "shopify", summary: "Shopify Customer Account API (a shop's buyers)",
            options: [.domain("--shop-domain", key: "shop_domain", example: "SHOP.myshopify.com", what: "the shop's domain")],
            // Shopify's document, at the shop's domain, names `https://shopify.com/authentication/SHOP_ID`.
            issuer: .fromDiscoveryDocument,
            discoveryURL: "{shop_domain}/.well-known/openid-configuration",
            scopes: ["openid", "email", "customer-account-api:full"],
            // Public clients are registered with this callback; Shopify refuses http and localhost.
            redirectURI: "shop.{issuer_last_segment}.app://callback",
            docsAnchor: "shopify-customer-account-api"),
        ProviderPreset(
            name: "workos", summary: "WorkOS AuthKit, User Management API (native apps, PublicClient)",
            options: [],
            issuer: .template("https://api.workos.com/user_management/{client_id}"),
            parameters: ["provider": "authkit"],
            tokenRequestFormat: .json,
            endpoints: ManualEndpoints(
                authorization: "https://api.workos.com/user_management/authorize",
                token: "https://api.workos.com/user_management/authenticate",
                endSession: "https://api.workos.com/user_management/sessions/logout",
                jwksURI: "https://api.workos.com/sso/jwks/{client_id}"),
            docsAnchor: "workos-authkit--user-management-api-native-app-publicclient"),
        ProviderPreset(
            name: "workos-connect", summary: "WorkOS AuthKit, standard OAuth/OIDC apps (Connect)",
            options: [
                .domain("--authkit-domain", key: "authkit_domain", example: "SUBDOMAIN.authkit.app", what: "the AuthKit domain")
            ],
            issuer: .template("{authkit_domain}"),
            scopes: ["openid", "profile", "email", "offline_access"],
            docsAnchor: "workos-authkit"),
        ProviderPreset(
            name: "github", summary: "GitHub OAuth app or GitHub App user tokens (no discovery, no ID token)",
            options: [],
            issuer: .template("https://github.com"),
            // GitHub's scopes (no `openid`): private repositories and org membership, as `gh` asks.
            scopes: ["repo", "read:org"],
            // GitHub documents client_id and client_secret as request parameters; manual endpoints
            // carry no metadata that would say so.
            tokenEndpointAuthMethod: .clientSecretPost,
            endpoints: ManualEndpoints(
                authorization: "https://github.com/login/oauth/authorize",
                token: "https://github.com/login/oauth/access_token",
                deviceAuthorization: "https://github.com/login/device/code"),
            docsAnchor: "github-oauth-app"),
        ProviderPreset(
            name: "gitlab", summary: "GitLab.com or a self-managed GitLab (OpenID Connect, git over HTTPS)",
            options: [
                .url(
                    "--gitlab-url", key: "gitlab_url", example: "https://gitlab.example.com", what: "a self-managed GitLab's URL",
                    default: "https://gitlab.com")
            ],
            issuer: .template("{gitlab_url}"),
            scopes: ["openid", "read_repository", "write_repository"],
            docsAnchor: "gitlab"),
        ProviderPreset(
            name: "google", summary: "Google (Desktop app client; its client secret is required but not secret)",
            options: [],
            issuer: .template("https://accounts.google.com"),
            scopes: ["openid", "email"],
            // No refresh token without both (Google's "Using OAuth 2.0 for Installed Applications").
            parameters: ["access_type": "offline", "prompt": "consent"],
            docsAnchor: "google",
            // Google's refresh with a `scope` subset returns a narrower access token; the refresh
            // token keeps every scope it was granted.
            keepsGrantOnNarrowedRefresh: true),
        ProviderPreset(
            name: "microsoft", summary: "Microsoft Entra ID / Microsoft 365 (v2.0 endpoints)",
            options: [.tenant("--tenant", key: "tenant")],
            issuer: .template("https://login.microsoftonline.com/{tenant}/v2.0"),
            scopes: ["openid", "profile", "offline_access"],
            // The "Mobile and desktop applications" platform ignores a localhost redirect's port.
            redirectHost: "localhost",
            docsAnchor: "microsoft-entra-id-azure-ad-microsoft-365",
            // Entra's refresh tokens are multi-resource: `scope=RESOURCE/.default` mints a token for
            // each resource the user consented to, without changing the refresh token's grant.
            keepsGrantOnNarrowedRefresh: true, sendsResourceParameter: false),
        ProviderPreset(
            name: "keycloak", summary: "Keycloak realm (public client, PKCE S256)",
            options: [
                .url("--realm-url", key: "realm_url", example: "https://sso.example.com/realms/REALM", what: "the realm's URL")
            ],
            issuer: .template("{realm_url}"),
            // `offline_access`: an offline token that outlives the SSO session's idle timeout.
            scopes: ["openid", "offline_access"],
            docsAnchor: "keycloak"),
        ProviderPreset(
            name: "okta", summary: "Okta, the org's default custom authorization server",
            options: [.domain("--okta-domain", key: "okta_domain", example: "ORG.okta.com", what: "the Okta org's domain")],
            issuer: .template("{okta_domain}/oauth2/default"),
            scopes: ["openid", "profile", "offline_access"],
            docsAnchor: "okta"),
        ProviderPreset(
            name: "auth0", summary: "Auth0 Native application calling an API (its audience)",
            options: [
                .domain("--auth0-domain", key: "auth0_domain", example: "TENANT.REGION.auth0.com", what: "the tenant's domain"),
                .required("--audience", example: "API_IDENTIFIER", what: "the API's identifier; without it the token is opaque"),
            ],
            // Auth0's issuer ends with a slash; discovery compares it exactly.
            issuer: .template("{auth0_domain}/"),
            scopes: ["openid", "profile", "offline_access"],
            docsAnchor: "auth0"),
        ProviderPreset(
            name: "dex", summary: "Dex (a public static client)",
            options: [.url("--dex-url", key: "dex_url", example: "https://dex.example.com", what: "Dex's issuer: setting")],
            issuer: .template("{dex_url}"),
            scopes: ["openid", "email", "offline_access"],
            // Dex lets public clients redirect to any http://localhost:PORT, and only to localhost.
            redirectHost: "localhost",
            docsAnchor: "dex"),
        ProviderPreset(
            name: "django-oauth-toolkit", summary: "django-oauth-toolkit with OIDC enabled (a Public application)",
            options: [.url("--dot-url", key: "dot_url", example: "https://app.example.com/o", what: "the toolkit's URL prefix")],
            issuer: .template("{dot_url}"),
            scopes: ["openid", "read"],
            // By hand, because the discovery document omits the revocation endpoint the toolkit has.
            endpoints: ManualEndpoints(
                authorization: "{dot_url}/authorize/", token: "{dot_url}/token/", revocation: "{dot_url}/revoke_token/",
                userinfo: "{dot_url}/userinfo/", jwksURI: "{dot_url}/.well-known/jwks.json"),
            docsAnchor: "django-oauth-toolkit"),
    ]

    static func named(_ name: String) -> ProviderPreset? { all.first { $0.name == name } }

    /// Every preset option of every row, once (what `account add` accepts besides its own options).
    static var allOptionFlags: [String] {
        var seen: [String] = []
        for option in all.flatMap(\.options) where option.kind != .accountOption && !seen.contains(option.flag) {
            seen.append(option.flag)
        }
        return seen
    }
}

/// Where a preset's issuer comes from.
enum PresetIssuer: Sendable {
    /// A template of the row's placeholders.
    case template(String)
    /// The `issuer` the discovery document names (`POST /v1/discovery`): Shopify's document lives at
    /// the shop's domain and names an issuer on another origin, which only the document knows.
    case fromDiscoveryDocument
}
