import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import BrokerStore
import FoundationEssentials

/// What the broker holds in memory for one account: its stored identity and configuration, the
/// provider metadata, and the state machine — and what each action needs derived from them, the
/// OAuth client first, here in one place.
///
/// One reference wide: every stored property lives in one copy-on-write box (`OutOfLine`), so the
/// accounts dictionary's slots — up to two per account — are a pointer each, not the runtime's
/// ≈ 230 bytes with its configuration and machine in further boxes (docs/BENCHMARKS.md, "Round 5").
struct AccountRuntime: Sendable {
    /// The stored properties, kept together out of line.
    private struct Stored: Sendable {
        let id: Int64
        let owner: UInt32
        var configuration: AccountConfiguration
        var clientSecret: Secret?
        /// Its own box: accounts of one provider source share one (`ProviderSources`, `adopt`).
        var metadata: OutOfLine<CachedProviderMetadata?>
        var machine: AccountStateMachine
        var subject: String?
        var persistedStatus: TokenStatus?
        var persistedTokens: TokenSet?
        var reportedState: AccountState?
    }

    @OutOfLine private var stored: Stored

    init(
        id: Int64, owner: UInt32, configuration: AccountConfiguration, clientSecret: Secret?,
        metadata: CachedProviderMetadata?, machine: AccountStateMachine
    ) {
        stored = Stored(
            id: id, owner: owner, configuration: configuration, clientSecret: clientSecret,
            metadata: OutOfLine(wrappedValue: metadata), machine: machine)
    }

    var id: Int64 { stored.id }
    /// The uid that created the account: only it can see or use the account.
    var owner: UInt32 { stored.owner }
    /// As the user configured it, without the client secret (never returned).
    var configuration: AccountConfiguration {
        get { stored.configuration }
        _modify { yield &stored.configuration }
    }
    var clientSecret: Secret? {
        get { stored.clientSecret }
        _modify { yield &stored.clientSecret }
    }
    var metadata: CachedProviderMetadata? {
        get { stored.metadata.wrappedValue }
        _modify { yield &stored.metadata.wrappedValue }
    }
    /// The metadata's box, to share one among accounts: `runtime.metadataStorage = shared`.
    var metadataStorage: OutOfLine<CachedProviderMetadata?> {
        get { stored.metadata }
        set { stored.metadata = newValue }
    }
    var machine: AccountStateMachine {
        get { stored.machine }
        _modify { yield &stored.machine }
    }
    var subject: String? {
        get { stored.subject }
        _modify { yield &stored.subject }
    }
    /// The status last written to the vault, so it is rewritten only when it changes.
    var persistedStatus: TokenStatus? {
        get { stored.persistedStatus }
        _modify { yield &stored.persistedStatus }
    }
    /// The state last counted in the metrics' account gauge (`BrokerMetrics.state`).
    var reportedState: AccountState? {
        get { stored.reportedState }
        _modify { yield &stored.reportedState }
    }
    /// The tokens last committed to the vault, so `persistTokens` after a pre-committed set is a no-op.
    var persistedTokens: TokenSet? {
        get { stored.persistedTokens }
        _modify { yield &stored.persistedTokens }
    }

    var name: String { configuration.name }
    var key: AccountKey { AccountKey(owner: owner, name: name) }

    /// The OAuth client, derived (never stored) so it always follows the configuration, the secret
    /// and the metadata (whose `token_endpoint_auth_methods_supported` picks basic or post).
    var client: ClientConfiguration {
        configuration.clientConfiguration(secret: clientSecret, metadata: metadata?.metadata)
    }

    /// The client a new login (browser or device) uses: with a fresh DPoP key when the account uses
    /// DPoP. Every login makes its own key, so a new login is the only way the key changes.
    func loginClient() throws(OIDCError) -> ClientConfiguration {
        var client = client
        guard configuration.dpop == true else { return client }
        do {
            client.dpopKey = try ECSigningKey.generate()
        } catch {
            throw .invalidConfiguration("a DPoP key could not be generated: \(error.description)")
        }
        return client
    }

    /// Where a browser login's loopback listener binds, per the configuration.
    var loopbackRedirect: LoopbackRedirect {
        LoopbackRedirect(
            host: configuration.redirectHost.flatMap { AccountValidation.redirectHosts[$0] } ?? .ipv4,
            port: configuration.redirectPort ?? 0, path: configuration.redirectPath ?? RedirectURI.defaultPath)
    }

    /// The private-use scheme redirect, when the account has one (validated when it was added).
    var privateUseRedirect: PrivateUseRedirectURI? {
        configuration.redirectURI.flatMap { try? PrivateUseRedirectURI(parsing: $0) }
    }

    /// The status to store: the machine's last refresh and error, and the subject.
    var status: TokenStatus {
        TokenStatus(
            lastRefreshAt: machine.lastRefreshAt, lastErrorCode: machine.lastError?.code.rawValue,
            lastErrorMessage: machine.lastError?.message, subject: subject)
    }

    /// The current tokens when they differ from the set last committed to the vault.
    var unsavedTokens: TokenSet? {
        guard let tokens = machine.currentTokens, persistedTokens != tokens else { return nil }
        return tokens
    }
}

extension AccountConfiguration {
    /// Where the account's metadata comes from: its manual endpoints, else discovery from the
    /// configured document URL or the one under the issuer.
    var providerSource: ProviderSource {
        manualMetadata.map(ProviderSource.manual) ?? .discovery(documentURL: discoveryURL)
    }

    /// The discovery document this account reads, the key of its cached metadata (nil: manual
    /// endpoints, nothing cached). Accounts share cached metadata only when this and the issuer match.
    var metadataDocumentURL: String? { try? providerSource.documentURL(issuer: issuer) }

    /// The OAuth client: a secret is sent as the account's `token_endpoint_auth_method` says, else
    /// client_secret_basic unless the provider only offers _post.
    func clientConfiguration(secret: Secret?, metadata: ProviderMetadata?) -> ClientConfiguration {
        var authentication = ClientAuthentication.none
        if let secret {
            let methods = metadata?.tokenEndpointAuthMethodsSupported ?? []
            let postOnly = methods.contains("client_secret_post") && !methods.contains("client_secret_basic")
            let post = tokenEndpointAuthMethod.map { $0 == .clientSecretPost } ?? postOnly
            authentication = post ? .clientSecretPost(secret) : .clientSecretBasic(secret)
        }
        return ClientConfiguration(
            clientID: clientID, authentication: authentication, scopes: scopes, resources: resourceParameters,
            audience: audience,
            extraParameters: extraParameters.sorted { $0.key < $1.key }.map { FormField($0.key, $0.value) },
            tokenRequestFormat: tokenRequestFormat ?? .form, allowedTenants: tenantAllow ?? [],
            pushedAuthorization: pushedAuthorization ?? .auto)
    }

    /// The RFC 8707 `resource` every grant of the account carries: its resource URL, unless
    /// `send_resource` is false (Entra v2 refuses the parameter).
    var resourceParameters: [String] {
        guard let resourceURL, sendResource != false else { return [] }
        return [resourceURL]
    }

    /// True when the account names its endpoints itself (no discovery, nothing cached).
    var hasManualEndpoints: Bool { endpoints.map { !$0.isEmpty } ?? false }

    /// Metadata from manually configured endpoints (providers without discovery).
    var manualMetadata: ProviderMetadata? {
        guard hasManualEndpoints, let endpoints else { return nil }
        return ProviderMetadata(
            issuer: issuer, authorizationEndpoint: endpoints.authorization, tokenEndpoint: endpoints.token,
            jwksURI: endpoints.jwksURI, userinfoEndpoint: endpoints.userinfo, revocationEndpoint: endpoints.revocation,
            endSessionEndpoint: endpoints.endSession, deviceAuthorizationEndpoint: endpoints.deviceAuthorization,
            pushedAuthorizationRequestEndpoint: endpoints.pushedAuthorizationRequest)
    }
}

extension AccountConfiguration {
    /// `pin_sha256` as digests (validated when the account was added; an unreadable pin is dropped
    /// only if validation was bypassed, and then the remaining pins still apply).
    var publicKeyPins: PublicKeyPins {
        PublicKeyPins(digests: Set((pinSHA256 ?? []).compactMap(PublicKeyPin.digest)))
    }
}
