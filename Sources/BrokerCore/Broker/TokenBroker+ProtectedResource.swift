import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import BrokerStore

/// Accounts added from a protected resource's URL alone (`authctl account add NAME --resource-url
/// URL`): the daemon discovers the authorization server (`OIDCClient.discoverProtectedResource`)
/// and obtains a client id in the MCP spec's order — pre-registered, a Client ID Metadata
/// Document, or RFC 7591 dynamic registration kept in the vault and deleted on removal.
extension TokenBroker {
    /// `input` with its issuer, discovery document, scopes and client filled in; unchanged for an
    /// account that names its issuer (or has no resource URL).
    /// `dryRun` (`account apply --dry-run` and its check): discovery runs, but a registration that
    /// would be needed is not made (the client id stands in as `pendingRegistrationClientID`).
    func completeProtectedResource(_ input: AccountConfiguration, owner: UInt32, dryRun: Bool = false) async throws(WireError)
        -> AccountConfiguration
    {
        guard let resourceURL = input.resourceURL, input.issuer.isEmpty else {
            if input.resourceURL != nil, input.clientID.isEmpty {
                throw fail(
                    WireError(
                        code: .invalidRequest,
                        message: "With --issuer, an account of a resource needs --client-id ID "
                            + "(or leave out --issuer and the daemon discovers the server and registers a client)."))
            }
            return input
        }
        // Everything else is checked before anything is fetched or registered (with stand-ins
        // for what discovery fills in).
        var provisional = input
        (provisional.issuer, provisional.clientID) = (
            "https://resource.invalid", input.clientID.isEmpty ? "pending" : input.clientID
        )
        _ = try AccountValidation.check(provisional).get()
        var configuration = input
        let oidc = oidcClient(for: input)
        let discovery: ProtectedResourceDiscovery
        do throws(OIDCError) {
            discovery = try await ProviderTask.run { () async throws(OIDCError) in
                try await oidc.discoverProtectedResource(resourceURL)
            }.get()
        } catch {
            throw fail(
                WireError(
                    code: error.isPinMismatch ? .tlsPinMismatch : .invalidRequest,
                    message: "Cannot use resource '\(resourceURL)': \(error.description)"))
        }
        configuration.issuer = discovery.issuer
        configuration.resourceURL = discovery.resource
        if discovery.documentURL != (try? Discovery.openIDConfigurationURL(issuer: discovery.issuer)) {
            configuration.discoveryURL = discovery.documentURL
        }
        if configuration.scopes.isEmpty { configuration.scopes = discovery.scopes }
        try await obtainClient(&configuration, discovery: discovery, owner: owner, dryRun: dryRun)
        return configuration
    }

    /// An update (`account apply`) of an account of a resource: a file that names only the
    /// resource keeps what the daemon discovered and obtained for it (issuer, discovery document,
    /// client, scopes, port), so re-applying it changes nothing; a changed resource is discovered
    /// again. A client id the daemon obtained at one issuer is never offered to another.
    func completeUpdate(_ input: AccountConfiguration, of old: AccountConfiguration, owner: UInt32, dryRun: Bool = false)
        async throws(WireError)
        -> AccountConfiguration
    {
        var configuration = input
        let sameResource = input.resourceURL.flatMap { try? EndpointURL.canonicalResource($0).string } == old.resourceURL
        if input.resourceURL != nil, input.issuer.isEmpty {
            guard sameResource else { return try await completeProtectedResource(input, owner: owner, dryRun: dryRun) }
            configuration.issuer = old.issuer
            configuration.resourceURL = old.resourceURL
            if configuration.clientID.isEmpty {
                (configuration.clientID, configuration.clientRegistration) = (old.clientID, old.clientRegistration)
            }
            if configuration.discoveryURL == nil { configuration.discoveryURL = old.discoveryURL }
            if configuration.scopes.isEmpty { configuration.scopes = old.scopes }
            if configuration.redirectPort == nil { configuration.redirectPort = old.redirectPort }
        }
        let obtained = old.clientRegistration == .dynamic || old.clientRegistration == .metadataDocument
        if obtained, configuration.clientID == old.clientID, configuration.issuer != old.issuer {
            throw fail(
                WireError(
                    code: .invalidRequest,
                    message: "The client id of '\(old.name)' was obtained from \(old.issuer) "
                        + "and is never sent to another authorization server: remove the account and add it again."))
        }
        if configuration.clientID == old.clientID, configuration.clientRegistration == nil {
            configuration.clientRegistration = old.clientRegistration
        }
        return configuration
    }

    /// `--client-id`, else a metadata document the server accepts, else a registration (one of
    /// the owner's at this issuer whose redirect the account can use, or a new one).
    private func obtainClient(
        _ configuration: inout AccountConfiguration, discovery: ProtectedResourceDiscovery, owner: UInt32, dryRun: Bool
    ) async throws(WireError) {
        if !configuration.clientID.isEmpty {
            configuration.clientRegistration = .preregistered
            return
        }
        if let document = configuration.clientMetadataURL, discovery.acceptsClientMetadataDocuments {
            configuration.clientID = document
            configuration.clientRegistration = .metadataDocument
            return
        }
        guard let endpoint = discovery.registrationEndpoint else {
            let needs =
                discovery.acceptsClientMetadataDocuments
                ? "a Client ID Metadata Document (--client-metadata-url URL) or a pre-registered client (--client-id ID)"
                : "a pre-registered client: register one there and add the account with --client-id ID"
            throw fail(
                WireError(
                    code: .invalidRequest,
                    message: "The authorization server \(discovery.issuer) offers no dynamic "
                        + "client registration; it needs \(needs)."))
        }
        if let reused = try await reusableRegistration(for: configuration, issuer: discovery.issuer, owner: owner) {
            configuration.clientID = reused.clientID
            configuration.clientRegistration = .dynamic
            return
        }
        guard !dryRun else {
            (configuration.clientID, configuration.clientRegistration) = (Self.pendingRegistrationClientID, .dynamic)
            return
        }
        try await register(&configuration, at: endpoint, issuer: discovery.issuer, owner: owner)
    }

    /// The client id a dry run shows for a registration it did not make.
    static let pendingRegistrationClientID = "registered-when-applied"

    private func register(_ configuration: inout AccountConfiguration, at endpoint: String, issuer: String, owner: UInt32)
        async throws(WireError)
    {
        let redirectURI = try fixedRedirectURI(&configuration)
        let (oidc, scopes) = (oidcClient(for: configuration), configuration.scopes)
        let registered: RegisteredClient
        do throws(OIDCError) {
            registered = try await ProviderTask.run { () async throws(OIDCError) in
                try await oidc.registerClient(at: endpoint, redirectURI: redirectURI, scopes: scopes)
            }.get()
        } catch {
            throw fail(WireError(code: .invalidRequest, message: "Cannot register a client at \(issuer): \(error.description)"))
        }
        let registration = ClientRegistration(
            owner: owner, issuer: issuer, clientID: registered.clientID, redirectURI: redirectURI,
            registrationClientURI: registered.registrationClientURI, registrationAccessToken: registered.registrationAccessToken)
        let time = now()
        do {
            try await worker.perform { vault in try vault.saveClientRegistration(registration, now: time) }
        } catch {
            throw fail(WireError(code: .internal, message: "The client registration could not be stored: \(error)"))
        }
        logger.info("client registered", ["issuer": issuer, "client_id": registered.clientID])
        configuration.clientID = registered.clientID
        configuration.clientRegistration = .dynamic
    }

    /// A registration of the owner's at `issuer`, made for this resource, whose redirect URI the
    /// account can take as its own (its port becomes the account's fixed port).
    private func reusableRegistration(for configuration: AccountConfiguration, issuer: String, owner: UInt32)
        async throws(WireError) -> ClientRegistration?
    {
        let registrations: [ClientRegistration]
        do {
            registrations = try await worker.perform { vault in try vault.clientRegistrations(owner: owner, issuer: issuer) }
        } catch {
            throw fail(WireError(code: .internal, message: "The client registrations could not be read: \(error)"))
        }
        // Only a client registered for this same resource: a resource whose metadata names the
        // user's real authorization server must not inherit the client (and remembered consent)
        // registered for another resource there (hostile review).
        let sameResource = Set(
            accounts.values.lazy.filter {
                $0.owner == owner && $0.configuration.clientRegistration == .dynamic
                    && $0.configuration.resourceURL == configuration.resourceURL
            }.map(\.configuration.clientID))
        var probe = configuration
        return registrations.first { registration in
            guard sameResource.contains(registration.clientID) else { return false }
            probe.redirectPort = configuration.redirectPort ?? Self.port(of: registration.redirectURI)
            return (try? fixedRedirectURI(&probe)) == registration.redirectURI
        }
    }

    /// The exact redirect URI the account will use, for a registration: its private-use URI, or
    /// its loopback one on a port fixed now (a free one unless configured) and kept in the account.
    private func fixedRedirectURI(_ configuration: inout AccountConfiguration) throws(WireError) -> String {
        if let uri = configuration.redirectURI { return uri }
        let host = configuration.redirectHost.flatMap { AccountValidation.redirectHosts[$0] } ?? .ipv4
        if configuration.redirectPort == nil {
            let listeners = try? LoopbackRedirect(host: host, port: 0).bind()
            configuration.redirectPort = listeners?.first?.port
        }
        guard let port = configuration.redirectPort,
            let uri = try? RedirectURI(host: host, port: port, path: configuration.redirectPath ?? RedirectURI.defaultPath)
        else { throw fail(WireError(code: .internal, message: "No loopback port could be chosen for the client registration.")) }
        return uri.description
    }

    private static func port(of uri: String) -> Int? {
        guard let url = try? EndpointURL(parsing: uri, what: "redirect_uri") else { return nil }
        return url.port
    }

    /// After an account was removed: its dynamic registration is deleted (RFC 7592) and forgotten,
    /// unless another of the owner's accounts still uses that client id. Best effort.
    func releaseRegistration(of configuration: AccountConfiguration, owner: UInt32) async {
        guard configuration.clientRegistration == .dynamic else { return }
        let (issuer, clientID) = (configuration.issuer, configuration.clientID)
        let shared = accounts.contains { key, runtime in
            key.owner == owner && runtime.configuration.issuer == issuer && runtime.configuration.clientID == clientID
        }
        guard !shared else { return }
        guard
            let registrations = try? await worker.perform({ vault in try vault.clientRegistrations(owner: owner, issuer: issuer) }
            ),
            let registration = registrations.first(where: { $0.clientID == clientID })
        else { return }
        if let uri = registration.registrationClientURI, let token = registration.registrationAccessToken {
            let oidc = oidcClient(for: configuration)
            let deleted = await oidc.deleteRegistration(at: uri, token: token)
            if !deleted { logger.warning("the client registration could not be deleted at the server", ["issuer": issuer]) }
        }
        _ = try? await worker.perform { vault in
            try vault.removeClientRegistration(owner: owner, issuer: issuer, clientID: clientID)
        }
    }
}
