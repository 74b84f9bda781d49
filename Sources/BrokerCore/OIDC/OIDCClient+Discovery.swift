import BrokerHTTP
import FoundationEssentials

/// Where an account's provider metadata comes from.
public enum ProviderSource: Sendable, Equatable {
    /// Discovery; `documentURL` overrides `{issuer}/.well-known/openid-configuration` for
    /// providers that serve it elsewhere (Shopify: the shop's own domain).
    case discovery(documentURL: String?)
    /// Configured endpoints for providers without discovery.
    case manual(ProviderMetadata)

    /// The discovery document this source reads (`{issuer}/.well-known/openid-configuration`
    /// unless overridden); nil for manual endpoints. The key under which its metadata is cached.
    public func documentURL(issuer: String) throws(OIDCError) -> String? {
        guard case .discovery(let documentURL) = self else { return nil }
        if let documentURL { return documentURL }
        return try Discovery.openIDConfigurationURL(issuer: issuer)
    }
}

extension OIDCClient {
    /// Provider metadata through the cache policy: a fresh cached copy is served as is; a stale
    /// or absent one is refetched; when the refetch fails, a stale copy keeps serving with a
    /// warning. A cached copy from another source (another discovery document claiming the same
    /// issuer) is never served. Manual metadata is only validated. The caller persists
    /// `outcome.cached` when `outcome.isNew`.
    public func discover(
        issuer: String, source: ProviderSource = .discovery(documentURL: nil),
        neededEndpoints: Set<ProviderEndpoint> = [], cached: CachedProviderMetadata? = nil
    ) async throws(OIDCError) -> DiscoveryOutcome {
        let now = time.now()
        if case .manual(let metadata) = source {
            try metadata.validate(expectedIssuer: issuer)
            return DiscoveryOutcome(
                cached: CachedProviderMetadata(metadata: metadata, documentURL: nil, fetchedAt: now), isNew: false)
        }
        guard let documentURL = try source.documentURL(issuer: issuer) else { preconditionFailure("manual handled above") }
        if let cached, discoveryPolicy.isFresh(cached, issuer: issuer, documentURL: documentURL, now: now) {
            return DiscoveryOutcome(cached: cached, isNew: false)
        }
        let refetch: Result<ProviderMetadata, OIDCError>
        do throws(OIDCError) {
            refetch = .success(
                try await fetchMetadata(issuer: issuer, documentURL: documentURL, neededEndpoints: neededEndpoints))
        } catch {
            refetch = .failure(error)
        }
        return try discoveryPolicy.resolve(
            cached: cached, issuer: issuer, documentURL: documentURL, refetch: refetch, now: now
        ).get()
    }

    /// Fetches metadata: the OpenID Connect document first; the RFC 8414 document when the
    /// first is absent, or to fill endpoints in `neededEndpoints` the first lacks. A wrong
    /// issuer in either document is an error, never a reason to fall back.
    public func fetchMetadata(issuer: String, documentURL: String? = nil, neededEndpoints: Set<ProviderEndpoint> = [])
        async throws(OIDCError) -> ProviderMetadata
    {
        var openIDURL = try Discovery.openIDConfigurationURL(issuer: issuer)
        if let documentURL { openIDURL = documentURL }
        let (openID, openIDStatus) = try await fetchDocument(openIDURL, issuer: issuer)
        if let openID, neededEndpoints.allSatisfy({ openID.url(of: $0) != nil }) { return openID }
        let rfc8414URL = try Discovery.authorizationServerMetadataURL(issuer: issuer)
        guard let openID else {
            guard let metadata = try await fetchDocument(rfc8414URL, issuer: issuer).metadata else {
                throw .discoveryUnavailable(url: openIDURL, status: openIDStatus)
            }
            return metadata
        }
        // Filling gaps is best effort: the OpenID document alone is usable.
        guard let extra = try? await fetchDocument(rfc8414URL, issuer: issuer).metadata else { return openID }
        return openID.filling(from: extra)
    }

    /// The issuer a discovery document names, for `authctl account add --provider` (Shopify's
    /// document lives at the shop's domain and names an issuer on another origin). One GET with the
    /// same URL rule, TLS trust, timeouts and size cap as an account's discovery, and the same checks
    /// of the document; nothing is cached: the account's own discovery fetches it again and must
    /// find this issuer.
    public func documentIssuer(_ url: String) async throws(OIDCError) -> String {
        let (metadata, status) = try await fetchDocument(url, issuer: nil)
        guard let metadata else { throw .discoveryUnavailable(url: url, status: status) }
        return metadata.issuer
    }

    /// Completes `cached` with `endpoint` from the source's companion document (RFC 8414 beside
    /// the OpenID one, or the other way round) when an operation needs an endpoint the cached copy
    /// lacks — metadata cached before, or fetched without asking for it. Best effort and bounded by
    /// `MetadataGapLedger`: nil when the companion is absent, lacks it too (then not asked again for
    /// an hour), names another issuer, or cannot be reached. The caller persists a non-nil result.
    public func complete(_ cached: CachedProviderMetadata, issuer: String, with endpoint: ProviderEndpoint) async
        -> CachedProviderMetadata?
    {
        guard cached.metadata.url(of: endpoint) == nil, let documentURL = cached.documentURL,
            cached.belongs(issuer: issuer, documentURL: documentURL),
            let companion = try? Discovery.companionDocumentURL(issuer: issuer, documentURL: documentURL)
        else { return nil }
        let key = MetadataGapLedger.Key(issuer: issuer, documentURL: documentURL, endpoint: endpoint)
        guard metadataGaps.withLock({ $0.shouldConsult(key, now: time.now()) }) else { return nil }
        let found: ProviderMetadata?
        do throws(OIDCError) {
            found = try await fetchDocument(companion, issuer: issuer).metadata
        } catch {
            return nil  // not an answer about the endpoint: ask again next time
        }
        guard let found, found.url(of: endpoint) != nil else {
            metadataGaps.withLock { $0.recordLack(key, now: time.now()) }
            return nil
        }
        metadataGaps.withLock { $0.forget(key) }
        var completed = cached
        completed.metadata = cached.metadata.filling(from: found)
        return completed
    }

    private func fetchDocument(_ url: String, issuer: String?) async throws(OIDCError) -> (
        metadata: ProviderMetadata?, status: Int
    ) {
        let checked = try EndpointURL.secure(url, what: "discovery document URL")
        let response = try await OIDCHTTP.send(
            HTTPClientRequest(method: "GET", url: checked.string, headers: OIDCHTTP.acceptJSON), transport)
        return (try Discovery.readDocument(response, url: url, expectedIssuer: issuer, now: time.now()), response.status)
    }
}
