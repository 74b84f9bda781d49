import BrokerHTTP
import BrokerProtocol
import BrokerStore
import FoundationEssentials

// Provider metadata: discovery through the cache policy, shared by accounts of one document.
extension TokenBroker {
    /// The account's provider metadata through the discovery cache policy (24 h; the last good copy
    /// is served with a warning when a refetch fails). New documents are stored in the vault.
    /// `needing`: the endpoint the caller is about to use; when the metadata lacks it, the companion
    /// document is consulted (bounded, `OIDCClient.complete`) and a completed copy is stored.
    func metadata(for key: AccountKey, needing endpoint: ProviderEndpoint? = nil) async throws(OIDCError)
        -> ProviderMetadata
    {
        guard let runtime = accounts[key] else { throw .cancelled }
        if runtime.configuration.manualMetadata != nil, let cached = runtime.metadata { return cached.metadata }
        let configuration = runtime.configuration
        let oidc = oidcClient(for: configuration)
        let outcome = try await oidc.discover(
            issuer: configuration.issuer, source: configuration.providerSource, cached: runtime.metadata)
        if let warning = outcome.warning { logger.with(key).warning(warning) }
        if outcome.isNew { adopt(outcome.cached, for: configuration) }
        guard let endpoint, outcome.metadata.url(of: endpoint) == nil,
            let completed = await oidc.complete(outcome.cached, issuer: configuration.issuer, with: endpoint)
        else { return outcome.metadata }
        logger.with(key).info("\(endpoint.metadataKey) taken from the companion metadata document")
        adopt(completed, for: configuration)
        return completed.metadata
    }

    /// Keeps freshly fetched metadata: in memory for every account that reads the same document
    /// for the same issuer, and in the vault under both. Never for an account of another source.
    func adopt(_ cached: CachedProviderMetadata, for configuration: AccountConfiguration) {
        let issuer = configuration.issuer
        guard let documentURL = cached.documentURL, cached.belongs(issuer: issuer, documentURL: configuration.metadataDocumentURL)
        else { return }
        let shared = OutOfLine<CachedProviderMetadata?>(wrappedValue: cached)  // one box for all of them
        for (key, runtime) in accounts
        where runtime.configuration.issuer == issuer && runtime.configuration.metadataDocumentURL == documentURL {
            accounts[key]?.metadataStorage = shared
        }
        guard let json = cached.storedJSON else { return }
        let document = CachedDocument(json: json, fetchedAt: cached.fetchedAt.timeIntervalSince1970)
        let logger = logger
        worker.enqueue({ try $0.storeProviderMetadata(document, issuer: issuer, documentURL: documentURL) }) { error in
            logger.warning("cannot cache the provider metadata: \(error)", ["issuer": issuer])
        }
    }

    /// The provider metadata a new or changed configuration will use: its manual endpoints
    /// (validated), else discovery — from `discovery_url` when set. Refusals name the issuer.
    func resolveMetadata(for configuration: AccountConfiguration) async throws(WireError)
        -> CachedProviderMetadata
    {
        do throws(OIDCError) {
            if let manual = configuration.manualMetadata {
                try manual.validate(expectedIssuer: configuration.issuer)
                return CachedProviderMetadata(metadata: manual, documentURL: nil, fetchedAt: Date(timeIntervalSince1970: now()))
            }
            // Called by socket requests: fetch and decode off their connection thread.
            let (oidc, issuer, source) = (oidcClient(for: configuration), configuration.issuer, configuration.providerSource)
            return try await ProviderTask.run { () async throws(OIDCError) in
                try await oidc.discover(issuer: issuer, source: source).cached
            }.get()
        } catch {
            throw fail(
                WireError(
                    code: error.isPinMismatch ? .tlsPinMismatch : .invalidRequest,
                    message: "Cannot use issuer '\(configuration.issuer)': \(error.description)"))
        }
    }
}

extension TokenBroker {
    /// `POST /v1/discovery`: the issuer the discovery document at `url` names (`OIDCClient.documentIssuer`),
    /// fetched off the connection thread with the account-to-be's `pins`, as its own reads will be.
    /// Read-only: no account, cache or vault changes. The caller could make the daemon fetch the
    /// same URL through `POST /v1/accounts` anyway.
    public func discoveryIssuer(url: String, pins: [String]) async throws(WireError) -> DiscoveryResult {
        if let problem = PublicKeyPin.problem(with: pins) {
            throw fail(WireError(code: .invalidRequest, message: "pin_sha256: \(problem)"))
        }
        let digests = PublicKeyPins(digests: Set(pins.compactMap(PublicKeyPin.digest)))
        // Not the per-pin-set cache of `oidcClient(for:)`: callers name any pins here, once.
        let oidc = digests.isEmpty ? oidc : oidc.pinned(digests)
        do throws(OIDCError) {
            let issuer = try await ProviderTask.run { () async throws(OIDCError) in try await oidc.documentIssuer(url) }.get()
            return DiscoveryResult(issuer: issuer)
        } catch {
            // "check the issuer", the usual advice, does not apply: the caller has no issuer yet.
            let why =
                if case .discoveryUnavailable(_, let status) = error { "HTTP \(status), no discovery document there" } else {
                    error.description
                }
            throw fail(
                WireError(
                    code: error.isPinMismatch ? .tlsPinMismatch : .invalidRequest,
                    message: "could not read \(ProviderText.sanitize(url)): \(why)"))
        }
    }
}
