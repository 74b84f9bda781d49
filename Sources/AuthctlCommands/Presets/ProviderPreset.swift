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
    /// Manual endpoints, as templates (each `--…-endpoint` / `--jwks-uri` overrides its own).
    var endpoints = ManualEndpoints()
    /// A private-use redirect URI template (`--redirect-uri` or any loopback redirect option
    /// overrides it); nil: the loopback redirect.
    var redirectURI: String? = nil
    /// The section of docs/providers.md that walks through this provider.
    let docsAnchor: String

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
    ]

    static func named(_ name: String) -> ProviderPreset? { all.first { $0.name == name } }

    /// Every preset option of every row, once (what `account add` accepts).
    static var allOptionFlags: [String] {
        var seen: [String] = []
        for option in all.flatMap(\.options) where !seen.contains(option.flag) { seen.append(option.flag) }
        return seen
    }
}

/// An option a preset adds to `account add` (e.g. `--shop-domain`), required with that preset.
struct PresetOption: Sendable {
    let flag: String
    /// Its placeholder in the row's templates.
    let key: String
    /// What a value looks like, for messages and `--provider help`.
    let example: String
    /// What it is, for messages.
    let what: String

    /// A host name (`SHOP.myshopify.com`, a custom domain, `https://HOST`), expanded to its
    /// https origin; `http://` only for loopback hosts, as the daemon allows for tests.
    static func domain(_ flag: String, key: String, example: String, what: String) -> PresetOption {
        PresetOption(flag: flag, key: key, example: example, what: what)
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
