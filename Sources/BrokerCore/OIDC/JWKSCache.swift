import BrokerCrypto
import BrokerHTTP
import FoundationEssentials

/// The provider's JWKS, fetched on first use and kept in memory.
///
/// Key rotation: when a token names a `kid` the cached set lacks, the set is refetched once —
/// but such refetches happen at most once per `minimumRefetchInterval` (default 60 s), so a
/// stream of tokens with made-up `kid`s cannot turn the broker into a request amplifier against
/// the provider. The first fetch does not count against that limit: a provider that rotates its
/// key a few seconds after a login must not cost the user a new login at the next refresh. A set
/// fetched for the very token being checked is not refetched (it cannot know more).
/// Concurrent callers share one fetch in flight.
public actor JWKSCache: IDTokenKeySource {
    public nonisolated let jwksURI: String
    private let transport: any HTTPTransport
    private let time: OIDCTime
    private let minimumRefetchInterval: Duration
    private var keySet: JWKSet?
    /// When the last refetch for an unknown `kid` started (the rate-limited kind of fetch).
    private var lastRefetchStart: Duration?
    private var inFlight: Task<Result<JWKSet, OIDCError>, Never>?
    /// How many fetches were started (for tests and diagnostics).
    public private(set) var fetchCount = 0

    public init(
        jwksURI: String, transport: any HTTPTransport, time: OIDCTime = .system,
        minimumRefetchInterval: Duration = .seconds(60)
    ) {
        self.jwksURI = jwksURI
        self.transport = transport
        self.time = time
        self.minimumRefetchInterval = minimumRefetchInterval
    }

    public func candidates(kid: String?, algorithm: JWSAlgorithm) async throws(OIDCError) -> [JWK] {
        if keySet == nil {
            keySet = try await fetch()
            return keySet?.candidates(kid: kid, algorithm: algorithm) ?? []
        }
        var found = keySet?.candidates(kid: kid, algorithm: algorithm) ?? []
        if found.isEmpty, mayRefetch {
            lastRefetchStart = time.elapsed()
            keySet = try await fetch()
            found = keySet?.candidates(kid: kid, algorithm: algorithm) ?? []
        }
        return found
    }

    /// Fetches the key set unless one is held (never the rate-limited refetch): lets a refresh
    /// download it beside the token request instead of after the answer.
    public func prefetch() async {
        guard keySet == nil, let fetched = try? await fetch() else { return }
        if keySet == nil { keySet = fetched }
    }

    private var mayRefetch: Bool {
        guard let lastRefetchStart else { return true }
        return time.elapsed() - lastRefetchStart >= minimumRefetchInterval
    }

    private func fetch() async throws(OIDCError) -> JWKSet {
        if let inFlight { return try await inFlight.value.get() }
        fetchCount += 1
        let (transport, uri, now) = (self.transport, jwksURI, time.now())
        let task = Task { await Self.download(uri, transport: transport, now: now) }
        inFlight = task
        let result = await task.value
        inFlight = nil
        return try result.get()
    }

    private static func download(_ uri: String, transport: any HTTPTransport, now: Date) async -> Result<JWKSet, OIDCError> {
        do throws(OIDCError) {
            let url = try EndpointURL.secure(uri, what: "jwks_uri")
            let response = try await OIDCHTTP.send(HTTPClientRequest(method: "GET", url: url.string, headers: OIDCHTTP.acceptJSON), transport)
            guard response.status == 200 else {
                throw OIDCError.httpStatus(response.status, endpoint: "jwks_uri", retryAfter: RetryAfter.from(response.headers, now: now))
            }
            do {
                return .success(try JWKSet(json: response.body))
            } catch {
                throw OIDCError.malformedResponse(endpoint: "jwks_uri", reason: error.description)
            }
        } catch {
            return .failure(error)
        }
    }
}
