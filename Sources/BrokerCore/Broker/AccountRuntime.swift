import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import BrokerStore
import FoundationEssentials

/// What the broker holds in memory for one account: its stored identity and configuration, the
/// resolved OAuth client, provider metadata, and the state machine.
struct AccountRuntime: Sendable {
    let id: Int64
    /// The uid that created the account: only it can see or use the account.
    let owner: UInt32
    /// As the user configured it, without the client secret (never returned).
    var configuration: BrokerProtocol.AccountConfiguration
    var client: ClientConfiguration
    var clientSecret: Secret?
    var metadata: CachedProviderMetadata?
    var machine: AccountStateMachine
    var subject: String?
    /// The status last written to the vault, so it is rewritten only when it changes.
    var persistedStatus: TokenStatus?
    /// The tokens last committed to the vault, so `persistTokens` after a pre-committed set is a no-op.
    var persistedTokens: AccountTokens?

    var name: String { configuration.name }
    var key: AccountKey { AccountKey(owner: owner, name: name) }
    var manualEndpoints: ManualEndpoints? {
        configuration.endpoints.flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension BrokerProtocol.AccountConfiguration {
    /// Where the account's metadata comes from: its manual endpoints, else discovery from the
    /// configured document URL or the one under the issuer.
    var providerSource: ProviderSource {
        manualMetadata.map(ProviderSource.manual) ?? .discovery(documentURL: discoveryURL)
    }

    /// The discovery document this account reads, the key of its cached metadata (nil: manual
    /// endpoints, nothing cached). Accounts share cached metadata only when this and the issuer match.
    var metadataDocumentURL: String? { try? providerSource.documentURL(issuer: issuer) }

    /// The OAuth client: a secret means client_secret_basic unless the provider only offers _post.
    func clientConfiguration(secret: Secret?, metadata: ProviderMetadata?) -> ClientConfiguration {
        var authentication = ClientAuthentication.none
        if let secret {
            let methods = metadata?.tokenEndpointAuthMethodsSupported ?? []
            let postOnly = methods.contains("client_secret_post") && !methods.contains("client_secret_basic")
            authentication = postOnly ? .clientSecretPost(secret) : .clientSecretBasic(secret)
        }
        return ClientConfiguration(
            clientID: clientID, authentication: authentication, scopes: scopes, audience: audience,
            extraParameters: extraParameters.sorted { $0.key < $1.key }.map { FormField($0.key, $0.value) })
    }

    /// Metadata from manually configured endpoints (providers without discovery).
    var manualMetadata: ProviderMetadata? {
        guard let endpoints, !endpoints.isEmpty else { return nil }
        return ProviderMetadata(
            issuer: issuer, authorizationEndpoint: endpoints.authorization, tokenEndpoint: endpoints.token,
            jwksURI: endpoints.jwksURI, userinfoEndpoint: endpoints.userinfo, revocationEndpoint: endpoints.revocation,
            endSessionEndpoint: endpoints.endSession, deviceAuthorizationEndpoint: endpoints.deviceAuthorization)
    }
}

// Conversions between the engine's, the store's and the state machine's token types.
extension AccountTokens {
    init(_ tokens: TokenSet) {
        self.init(
            accessToken: tokens.accessToken, tokenType: "Bearer", refreshToken: tokens.refreshToken,
            idToken: tokens.idToken, scope: tokens.scope, obtainedAt: tokens.receivedAt.timeIntervalSince1970,
            expiresAt: tokens.expiresAt?.timeIntervalSince1970)
    }

    init(_ stored: BrokerStore.TokenSet) {
        self.init(
            accessToken: stored.accessToken, tokenType: stored.tokenType, refreshToken: stored.refreshToken,
            idToken: stored.idToken, scope: stored.scope, obtainedAt: stored.obtainedAt, expiresAt: stored.expiresAt)
    }

    var stored: BrokerStore.TokenSet {
        BrokerStore.TokenSet(
            accessToken: accessToken, refreshToken: refreshToken, idToken: idToken, tokenType: tokenType,
            scope: scope, expiresAt: expiresAt, obtainedAt: obtainedAt)
    }

    /// The engine's view, with the claims of the stored ID token (validated when it was received),
    /// so a refreshed ID token is checked for the same subject.
    var engineTokens: TokenSet {
        TokenSet(
            accessToken: accessToken, refreshToken: refreshToken, idToken: idToken, scope: scope,
            receivedAt: Date(timeIntervalSince1970: obtainedAt),
            expiresAt: expiresAt.map { Date(timeIntervalSince1970: $0) }, idTokenClaims: storedIDTokenClaims)
    }

    var storedIDTokenClaims: IDTokenClaims? {
        guard let idToken, let jws = try? JWSCompact.parse(idToken.revealString()) else { return nil }
        return try? IDTokenClaims(payload: jws.payload)
    }

    func grant(expiry: Double?) -> TokenGrant {
        TokenGrant(
            accessToken: accessToken.revealString(), tokenType: tokenType,
            expiresAt: expiry.map { RFC3339.format(unixSeconds: $0) }, scope: scope)
    }
}
