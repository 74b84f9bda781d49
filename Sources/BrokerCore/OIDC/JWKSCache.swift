import BrokerCrypto
import BrokerHTTP
import FoundationEssentials
import Synchronization

/// The provider's JWKS, fetched on first use and kept in memory.
///
/// Key rotation: when a token names a `kid` the cached set lacks, the set is refetched once —
/// but such refetches happen at most once per `minimumRefetchInterval` (default 60 s), so a
/// stream of tokens with made-up `kid`s cannot turn the broker into a request amplifier against
/// the provider. The first fetch does not count against that limit: a provider that rotates its
/// key a few seconds after a login must not cost the user a new login at the next refresh. A set
/// fetched for the very token being checked is not refetched (it cannot know more). An unknown
/// `kid` inside the rate limit is a passing failure (`unknownKeyRefetchDeferred`), never a reason
/// to give up on the account's grant.
///
/// A signature that fails under every cached key with the token's `kid` also causes one refetch,
/// under the same rate limit: a provider that replaced its key but kept the `kid` would otherwise
/// break every login until the daemon restarts.
///
/// Expiry: a downloaded set is used for its `Cache-Control: max-age` (clamped to 5 min … 24 h;
/// 24 h without one, 5 min for `no-cache`/`no-store`), then refetched on next use, so a key the
/// provider withdrew stops verifying tokens. A failed refetch of an expired set is an error
/// (transient), not a reason to keep trusting withdrawn keys.
/// Concurrent callers share one fetch in flight.
public actor JWKSCache: IDTokenKeySource {
    public nonisolated let jwksURI: String
    private let transport: any HTTPTransport
    private let time: OIDCTime
    private let minimumRefetchInterval: Duration
    private var keySet: JWKSet?
    /// When `keySet` stops being usable (monotonic).
    private var keySetExpiry: Duration = .zero
    /// When the last refetch for an unknown `kid` started (the rate-limited kind of fetch).
    private var lastRefetchStart: Duration?
    private var inFlight: Task<Result<(keys: JWKSet, maxAge: Duration), OIDCError>, Never>?
    /// How many fetches were started (for tests and diagnostics).
    public private(set) var fetchCount = 0
    /// `keySetExpiry` in nanoseconds of `time.elapsed()` (0: no set yet), for `hasFreshKeys`.
    private nonisolated let freshUntilNanoseconds = Atomic<Int64>(0)

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
        guard let keySet, time.elapsed() < keySetExpiry else {
            return try await fetch().candidates(kid: kid, algorithm: algorithm)
        }
        let found = keySet.candidates(kid: kid, algorithm: algorithm)
        guard found.isEmpty else { return found }
        guard let lastRefetchStart, time.elapsed() - lastRefetchStart < minimumRefetchInterval else {
            lastRefetchStart = time.elapsed()
            return try await fetch().candidates(kid: kid, algorithm: algorithm)
        }
        let wait = minimumRefetchInterval - (time.elapsed() - lastRefetchStart)
        let seconds = wait.components.seconds + (wait.components.attoseconds > 0 ? 1 : 0)  // round up
        throw .idToken(.unknownKeyRefetchDeferred(kid: kid, retryAfter: .seconds(max(1, seconds))))
    }

    public func candidatesAfterFailedSignature(kid: String?, algorithm: JWSAlgorithm) async -> [JWK] {
        if let lastRefetchStart, time.elapsed() - lastRefetchStart < minimumRefetchInterval { return [] }
        lastRefetchStart = time.elapsed()
        return (try? await fetch().candidates(kid: kid, algorithm: algorithm)) ?? []
    }

    /// Whether a key set is held and not yet expired, read without a hop to the actor: a refresh
    /// starts `prefetch` beside its token request only when this is false, instead of a child task
    /// per refresh that finds the set fresh (docs/BENCHMARKS-archive.md,
    /// "Forced refresh: wake-ups and parsing").
    public nonisolated var hasFreshKeys: Bool {
        Self.nanoseconds(time.elapsed()) < freshUntilNanoseconds.load(ordering: .acquiring)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).partialValue &+ attoseconds / 1_000_000_000
    }

    /// Fetches the key set unless a fresh one is held (never the rate-limited refetch): lets a
    /// refresh download it beside the token request instead of after the answer.
    public func prefetch() async {
        if keySet != nil, time.elapsed() < keySetExpiry { return }
        _ = try? await fetch()
    }

    private func fetch() async throws(OIDCError) -> JWKSet {
        if let inFlight { return try await inFlight.value.get().keys }
        fetchCount += 1
        let (transport, uri, now) = (self.transport, jwksURI, time.now())
        let task = Task { await Self.download(uri, transport: transport, now: now) }
        inFlight = task
        let started = time.elapsed()
        let result = await task.value
        inFlight = nil
        let (keys, maxAge) = try result.get()
        keySet = keys
        keySetExpiry = started + maxAge
        freshUntilNanoseconds.store(Self.nanoseconds(keySetExpiry), ordering: .releasing)
        return keys
    }

    /// How long a downloaded set may be used: `max-age` clamped to 5 min … 24 h, 24 h without one.
    public static func maxAge(cacheControl: String?) -> Duration {
        let (floor, ceiling) = (300, 24 * 3600)
        guard let cacheControl else { return .seconds(ceiling) }
        let directives = cacheControl.lowercased().split(separator: ",").map { directive in
            String(directive.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        }
        if directives.contains("no-cache") || directives.contains("no-store") { return .seconds(floor) }
        guard let value = directives.first(where: { $0.hasPrefix("max-age=") })?.dropFirst("max-age=".count),
            value.count <= 10, let seconds = Int(value)
        else { return .seconds(ceiling) }
        return .seconds(min(max(seconds, floor), ceiling))
    }

    private static func download(_ uri: String, transport: any HTTPTransport, now: Date) async
        -> Result<(keys: JWKSet, maxAge: Duration), OIDCError>
    {
        do throws(OIDCError) {
            let url = try EndpointURL.secure(uri, what: "jwks_uri")
            let response = try await OIDCHTTP.send(
                HTTPClientRequest(method: "GET", url: url.string, headers: OIDCHTTP.acceptJSON), transport)
            guard response.status == 200 else {
                throw OIDCError.httpStatus(
                    response.status, endpoint: "jwks_uri", retryAfter: RetryAfter.from(response.headers, now: now))
            }
            do {
                return .success((try JWKSet(json: response.body), maxAge(cacheControl: response.headers["Cache-Control"])))
            } catch {
                throw OIDCError.malformedResponse(endpoint: "jwks_uri", reason: error.description)
            }
        } catch {
            return .failure(error)
        }
    }
}
