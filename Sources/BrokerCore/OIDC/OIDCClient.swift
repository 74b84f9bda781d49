import BrokerCrypto
import BrokerHTTP
import BrokerStore
import FoundationEssentials
import Synchronization

/// The OIDC/OAuth engine the daemon calls: discovery, authorization request, code exchange,
/// refresh, revocation, logout URL, userinfo and the device grant, composed over an
/// `HTTPTransport` and an injected `OIDCTime`. Stateless except for the JWKS caches (one per
/// `jwks_uri`) and the gap-filling ledger (`MetadataGapLedger`), so one client can serve every account.
public final class OIDCClient: Sendable {
    let transport: any HTTPTransport
    let time: OIDCTime
    public let discoveryPolicy: DiscoveryCachePolicy
    let jwksRefetchInterval: Duration
    private let jwksCaches = Mutex<[String: JWKSCache]>([:])
    let metadataGaps: Mutex<MetadataGapLedger>
    /// Servers' latest DPoP nonces, shared with the pinned clients made from this one.
    let dpopNonces: DPoPNonces

    /// `metadataRecheckInterval`: how long a companion metadata document that lacked an endpoint
    /// is not asked again for it (`MetadataGapLedger`).
    public init(
        transport: any HTTPTransport, time: OIDCTime = .system, discoveryPolicy: DiscoveryCachePolicy = .init(),
        jwksRefetchInterval: Duration = .seconds(60), metadataRecheckInterval: Duration = .seconds(3600),
        dpopNonces: DPoPNonces = DPoPNonces()
    ) {
        self.transport = transport
        self.time = time
        self.discoveryPolicy = discoveryPolicy
        self.jwksRefetchInterval = jwksRefetchInterval
        metadataGaps = Mutex(MetadataGapLedger(recheckInterval: metadataRecheckInterval))
        self.dpopNonces = dpopNonces
    }

    /// A client like this one whose every request carries `pins`, with JWKS caches of its own: keys
    /// fetched without the pin check must not serve an account that demands it.
    public func pinned(_ pins: PublicKeyPins) -> OIDCClient {
        OIDCClient(
            transport: PinnedTransport(base: transport, pins: pins), time: time, discoveryPolicy: discoveryPolicy,
            jwksRefetchInterval: jwksRefetchInterval, dpopNonces: dpopNonces)
    }

    /// The shared JWKS cache for `metadata.jwks_uri`.
    public func keySource(for metadata: ProviderMetadata) throws(OIDCError) -> JWKSCache {
        let uri = try metadata.endpoint(.jwks).string
        return jwksCaches.withLock { caches in
            if let cache = caches[uri] { return cache }
            let cache = JWKSCache(jwksURI: uri, transport: transport, time: time, minimumRefetchInterval: jwksRefetchInterval)
            caches[uri] = cache
            return cache
        }
    }

    /// Builds the authorization URL and the pending login (see `AuthorizationRequest.make`).
    public func authorizationRequest(
        metadata: ProviderMetadata, client: ClientConfiguration, redirectURI: RedirectURI,
        lifetime: Duration = AuthorizationRequest.defaultLifetime, randomBytes: RandomBytes = .system
    ) throws(OIDCError) -> AuthorizationRequest {
        try AuthorizationRequest.make(
            metadata: metadata, client: client, redirectURI: redirectURI, now: time.now(), lifetime: lifetime,
            randomBytes: randomBytes)
    }

    /// The RP-initiated logout URL for `tokens` (see `EndSession.logoutURL`).
    public func logoutURL(metadata: ProviderMetadata, client: ClientConfiguration, tokens: TokenSet?, state: String? = nil)
        throws(OIDCError) -> String
    {
        try EndSession.logoutURL(metadata: metadata, client: client, tokens: tokens, state: state)
    }

    /// Fetches userinfo with the access token; checks `sub` against the ID token's when known. A
    /// DPoP-bound token goes as `Authorization: DPoP` with a proof (RFC 9449 §7), never as Bearer.
    public func userInfo(metadata: ProviderMetadata, tokens: TokenSet) async throws(OIDCError) -> UserInfo {
        let endpoint = try metadata.endpoint(.userinfo)
        var headers = OIDCHTTP.acceptJSON
        let scheme = tokens.dpopKey == nil ? "Bearer " : "DPoP "
        headers.add(name: "Authorization", value: scheme + tokens.accessToken.revealString())
        let response = try await send(
            HTTPClientRequest(method: "GET", url: endpoint.string, headers: headers), dpop: tokens.dpopKey,
            accessToken: tokens.accessToken)
        return try UserInfo.parse(response, expectedSubject: tokens.idTokenClaims?.subject, now: time.now())
    }
}
