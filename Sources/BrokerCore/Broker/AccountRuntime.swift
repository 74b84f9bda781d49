import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import BrokerStore
import FoundationEssentials

/// What the broker holds in memory for one account: its stored identity and configuration, the
/// provider metadata, and the state machine — and what each action needs derived from them, the
/// OAuth client first, here in one place.
struct AccountRuntime: Sendable {
    let id: Int64
    /// The uid that created the account: only it can see or use the account.
    let owner: UInt32
    /// As the user configured it, without the client secret (never returned).
    @OutOfLine var configuration: AccountConfiguration
    var clientSecret: Secret?
    @OutOfLine var metadata: CachedProviderMetadata?
    @OutOfLine var machine: AccountStateMachine
    var subject: String?
    /// The status last written to the vault, so it is rewritten only when it changes.
    var persistedStatus: TokenStatus?
    /// The tokens last committed to the vault, so `persistTokens` after a pre-committed set is a no-op.
    var persistedTokens: TokenSet?

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
            clientID: clientID, authentication: authentication, scopes: scopes, audience: audience,
            extraParameters: extraParameters.sorted { $0.key < $1.key }.map { FormField($0.key, $0.value) },
            tokenRequestFormat: tokenRequestFormat ?? .form, allowedTenants: tenantAllow ?? [],
            pushedAuthorization: pushedAuthorization ?? .auto)
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
