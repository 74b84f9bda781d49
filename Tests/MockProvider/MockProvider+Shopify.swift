import BrokerHTTP
import Foundation

// Shopify Customer Account API mode (`MockProviderConfiguration.shopifyShopID`).
extension MockProvider {
    /// `path` relative to the issuer's path, nil when it is not below it.
    func pathBelowIssuer(_ path: String) -> String? {
        guard !issuerPath.isEmpty else { return path }
        guard path.hasPrefix(issuerPath + "/") else { return nil }
        return String(path.dropFirst(issuerPath.count))
    }

    /// Whether the issuer's origin answers `endpoint`: in Shopify mode there is no discovery there
    /// (it is at the shop's domain) and no revocation endpoint.
    func serves(_ endpoint: String) -> Bool {
        shopDomain == nil || !["discovery", "revocation", "device"].contains(endpoint)
    }

    /// Shopify's discovery document, as the shop's domain serves it: the issuer
    /// `https://shopify.com/authentication/ID` (here under the mock's origin), its endpoints below the
    /// issuer, no revocation, userinfo or device authorization endpoint.
    func shopifyMetadataDocument(_ configuration: MockProviderConfiguration) -> [String: Any] {
        [
            "issuer": configuration.discoveryIssuer ?? issuer,
            "authorization_endpoint": url("oauth/authorize"),
            "token_endpoint": url("oauth/token"),
            "end_session_endpoint": url("logout"),
            "jwks_uri": url(".well-known/jwks.json"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:token-exchange"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "customer-account-api:full"],
            "subject_types_supported": ["public"],
            "claims_supported": ["iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "email", "email_verified"],
        ]
    }

    /// The shop's `/.well-known/customer-account-api`: where its Customer Account API GraphQL lives.
    var customerAccountAPIDocument: [String: Any] {
        let origin = String(issuer.dropLast(issuerPath.count))
        let shopID = configuration.shopifyShopID ?? ""
        return [
            "graphql_api": "\(origin)/\(shopID)/account/customer/api/unstable/graphql",
            "mcp_api": "\(origin)/\(shopID)/account/mcp",
        ]
    }
}

/// The shop's domain in Shopify mode: only its two discovery documents (injected `discovery`
/// faults apply, and count as discovery requests).
struct MockShopDomainRouter: HTTPHandler {
    let provider: MockProvider

    func handle(_ request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        guard request.method == "GET" else { return .plainText(status: 405, "use GET") }
        switch String(request.path) {
        case "/.well-known/openid-configuration":
            let configuration = provider.state.withLock { state in
                state.stats.discoveryRequests += 1
                return state.configuration
            }
            if let fault = provider.state.withLock({ $0.takeFault("discovery") }) { return MockResponse.fault(fault) }
            return MockResponse.json(provider.shopifyMetadataDocument(configuration))
        case "/.well-known/customer-account-api":
            return MockResponse.json(provider.customerAccountAPIDocument)
        default:
            return .plainText(status: 404, "no such page on the shop's domain")
        }
    }
}
