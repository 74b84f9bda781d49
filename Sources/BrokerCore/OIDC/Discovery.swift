import BrokerHTTP
import BrokerProtocol
import FoundationEssentials
import WireFormats

/// Where provider metadata lives and how a fetched document is judged.
///
/// Two documents exist: OpenID Connect Discovery (`{issuer}/.well-known/openid-configuration`)
/// and RFC 8414 (`{origin}/.well-known/oauth-authorization-server{issuer path}`). The engine
/// reads the first, falls back to the second when the first is absent, and fills endpoints the
/// first lacks (e.g. `revocation_endpoint`) from the second — at discovery for the endpoints asked
/// for, and later for cached metadata when an operation needs one (`OIDCClient.complete`). Either
/// document's `issuer` must equal the configured issuer exactly (OIDC Discovery §4.3, RFC 8414 §3.3),
/// with one exception for Microsoft Entra's multi-tenant documents (`EntraIssuer`).
public enum Discovery {
    /// OpenID Connect Discovery 1.0 §4: the issuer, without a trailing slash, plus the well-known path.
    public static func openIDConfigurationURL(issuer: String) throws(OIDCError) -> String {
        try checkIssuer(issuer)
        return String(issuer.hasSuffix("/") ? issuer.dropLast() : Substring(issuer))
            + "/.well-known/openid-configuration"
    }

    /// RFC 8414 §3.1: the well-known path goes between the host and the issuer's path component
    /// (whose terminating "/" is removed): `https://a.example/tenant` →
    /// `https://a.example/.well-known/oauth-authorization-server/tenant`.
    public static func authorizationServerMetadataURL(issuer: String) throws(OIDCError) -> String {
        try checkIssuer(issuer)
        return try EndpointURL(parsing: issuer, what: "issuer").pathInsertedWellKnown(EndpointURL.authorizationServerSuffix)
    }

    /// The document that complements `documentURL` for gap-filling: the OpenID one for an RFC 8414
    /// source, else the RFC 8414 one (also for a `discovery_url` elsewhere, such as Shopify's).
    public static func companionDocumentURL(issuer: String, documentURL: String) throws(OIDCError) -> String {
        let rfc8414 = try authorizationServerMetadataURL(issuer: issuer)
        return documentURL == rfc8414 ? try openIDConfigurationURL(issuer: issuer) : rfc8414
    }

    /// An issuer is an https URL (http for loopback only) with no query and no fragment
    /// (OIDC Discovery §3, RFC 8414 §2).
    public static func checkIssuer(_ issuer: String) throws(OIDCError) {
        let url = try EndpointURL.secure(issuer, what: "issuer")
        guard url.query == nil else { throw .invalidConfiguration("issuer must not contain a query") }
    }

    /// Reads one fetched document. Returns nil when the document is absent (a 4xx answer or a
    /// body that is not a metadata object), so the caller may try the other document; throws
    /// for overload/server errors (5xx, 408, 429 — retry later rather than fall back) and for an
    /// issuer that is not the configured one (never fall back past a wrong issuer). A nil
    /// `expectedIssuer` takes the one the document names, checked all the same (`POST /v1/discovery`).
    static func readDocument(_ response: HTTPResponse, url: String, expectedIssuer: String?, now: Date)
        throws(OIDCError) -> ProviderMetadata?
    {
        guard let body = try documentBody(response, url: url, now: now, what: "the metadata document"),
            var metadata = try? WireJSON.decode(ProviderMetadata.self, from: body)
        else { return nil }
        try metadata.validate(expectedIssuer: expectedIssuer ?? metadata.issuer)
        // An accepted Entra `{tenantid}` template serves the configured issuer: cache keys, the
        // pending login's issuer and the ID token rule (`EntraIssuer`) all start from that one.
        if let expectedIssuer { metadata.issuer = expectedIssuer }
        return metadata
    }
}

extension Discovery {
    /// The body of a fetched well-known document (provider or protected-resource metadata), nil
    /// when absent (any status but 200); throws for overload and server errors (retry later rather
    /// than fall back) and for JSON nested too deep to decode safely.
    static func documentBody(_ response: HTTPResponse, url: String, now: Date, what: String) throws(OIDCError) -> [UInt8]? {
        if OIDCError.isTransientStatus(response.status) {
            throw .httpStatus(response.status, endpoint: url, retryAfter: RetryAfter.from(response.headers, now: now))
        }
        guard response.status == 200 else { return nil }
        do throws(JSONTooDeep) {
            try JSONNesting.check(response.body)
        } catch {
            throw .malformedResponse(endpoint: url, reason: error.describing(what))
        }
        return response.body
    }
}

/// Provider metadata as the store keeps it: the document, where it came from and when.
///
/// `documentURL` is the metadata's source: the discovery document URL it was fetched from, or nil
/// for an account's manual endpoints. Two accounts may name the same issuer with different
/// documents (`discovery_url`), and a document may claim any issuer, so a cached copy serves an
/// account only when both the issuer and the source match — never by issuer alone.
public struct CachedProviderMetadata: Sendable, Equatable {
    public var metadata: ProviderMetadata {
        didSet { proofTargets = AuthorizationServerTargets(metadata) }
    }
    public var documentURL: String?
    public var fetchedAt: Date
    /// The endpoints no DPoP proof is made for, normalised once per document rather than per proof.
    private(set) var proofTargets: AuthorizationServerTargets

    public init(metadata: ProviderMetadata, documentURL: String?, fetchedAt: Date) {
        self.metadata = metadata
        proofTargets = AuthorizationServerTargets(metadata)
        self.documentURL = documentURL
        self.fetchedAt = fetchedAt
    }

    /// The document as the vault keeps it, written and read by the one wire coder (sorted keys).
    public var storedJSON: String? {
        (try? WireJSON.encode(metadata)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A stored document, read back with the same coder; nil when it no longer decodes.
    public static func storedMetadata(_ json: String) -> ProviderMetadata? {
        try? WireJSON.decode(ProviderMetadata.self, from: Array(json.utf8))
    }

    /// True when this copy may serve an account of `issuer` whose metadata comes from `documentURL`.
    public func belongs(issuer: String, documentURL: String?) -> Bool {
        metadata.issuer == issuer && self.documentURL == documentURL
    }
}

/// The result of resolving metadata through the cache policy.
public struct DiscoveryOutcome: Sendable, Equatable {
    public var cached: CachedProviderMetadata
    /// True when `cached` was just fetched: the caller should persist it.
    public var isNew: Bool
    /// Set when a refetch failed and the last good copy is served instead; log it.
    public var warning: String?

    public var metadata: ProviderMetadata { cached.metadata }
}

/// When to refetch provider metadata and what to do when refetching fails.
///
/// Metadata younger than `maximumAge` (24 h) is served from the cache. Older metadata is
/// refetched; when that fails for any reason, the last good copy keeps serving with a warning
/// (a provider outage must not log everyone out). Persistence belongs to the caller.
public struct DiscoveryCachePolicy: Sendable, Equatable {
    public var maximumAge: Duration

    public init(maximumAge: Duration = .seconds(24 * 3600)) {
        self.maximumAge = maximumAge
    }

    /// True when `cached` can be served without a fetch: same issuer and source, fetched less than
    /// `maximumAge` ago, and not in the future (a clock that jumped back makes it stale).
    public func isFresh(_ cached: CachedProviderMetadata, issuer: String, documentURL: String?, now: Date) -> Bool {
        let age = now.timeIntervalSince(cached.fetchedAt)
        return cached.belongs(issuer: issuer, documentURL: documentURL) && age >= 0 && age < Double(maximumAge.components.seconds)
    }

    /// Combines the cache and a refetch result into what to serve.
    public func resolve(
        cached: CachedProviderMetadata?, issuer: String, documentURL: String, refetch: Result<ProviderMetadata, OIDCError>,
        now: Date
    ) -> Result<DiscoveryOutcome, OIDCError> {
        switch refetch {
        case .success(let metadata):
            let fresh = CachedProviderMetadata(metadata: metadata, documentURL: documentURL, fetchedAt: now)
            return .success(DiscoveryOutcome(cached: fresh, isNew: true))
        case .failure(let error):
            guard let cached, cached.belongs(issuer: issuer, documentURL: documentURL) else { return .failure(error) }
            let warning =
                "provider metadata for \(issuer) could not be refreshed (\(error)); using the copy fetched at \(cached.fetchedAt)"
            return .success(DiscoveryOutcome(cached: cached, isNew: false, warning: warning))
        }
    }
}
