import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import TestSupport
import Testing

@Suite struct JWKSCacheTests {
    let jwksURL = "\(testIssuer)/jwks"

    func jwks(_ keys: [TestSigningKey]) throws -> FakeTransport.Reply {
        .response(HTTPResponse(status: 200, body: try TestSigningKey.jwksJSON(keys)))
    }

    /// A cache whose provider publishes key "old", then "old" and "new" (a rotation).
    func rotatingCache() throws -> (JWKSCache, TestTime) {
        let old = try TestSigningKey(.p256, kid: "old")
        let new = try TestSigningKey(.p256, kid: "new")
        let transport = FakeTransport()
        transport.on(jwksURL, try jwks([old]), try jwks([old, new]))
        let time = TestTime()
        return (JWKSCache(jwksURI: jwksURL, transport: transport, time: time.time), time)
    }

    @Test func rotatedKeyIsFetchedOnceAndAccepted() async throws {
        let (cache, time) = try rotatingCache()
        #expect(try await cache.candidates(kid: "old", algorithm: .es256).count == 1)
        #expect(try await cache.candidates(kid: "old", algorithm: .es256).count == 1)
        #expect(await cache.fetchCount == 1)
        time.advance(.seconds(61))
        #expect(try await cache.candidates(kid: "new", algorithm: .es256).first?.kid == "new")
        #expect(await cache.fetchCount == 2)
    }

    /// A refresh prefetches beside its token request: the verification after the answer then
    /// fetches nothing, a second prefetch neither, and the rate-limited refetch stays available.
    @Test func prefetchFillsTheCacheOnceAndLeavesTheRefetchAvailable() async throws {
        let (cache, time) = try rotatingCache()
        await cache.prefetch()
        await cache.prefetch()
        #expect(await cache.fetchCount == 1)
        #expect(try await cache.candidates(kid: "old", algorithm: .es256).count == 1)
        #expect(await cache.fetchCount == 1)
        time.advance(.seconds(2))
        #expect(try await cache.candidates(kid: "new", algorithm: .es256).first?.kid == "new")
        #expect(await cache.fetchCount == 2)
    }

    /// `hasFreshKeys` (read off the actor, so a refresh starts a prefetch only when one is needed)
    /// follows the set's lifetime: false before the first fetch, true while the set is fresh
    /// (24 h without Cache-Control), false again once it expired.
    @Test func hasFreshKeysFollowsTheSetsLifetime() async throws {
        let (cache, time) = try rotatingCache()
        #expect(!cache.hasFreshKeys)
        await cache.prefetch()
        #expect(cache.hasFreshKeys)
        time.advance(.seconds(24 * 3600 - 1))
        #expect(cache.hasFreshKeys)
        time.advance(.seconds(2))
        #expect(!cache.hasFreshKeys)
    }

    /// Found end to end (IntegrationTests.TokenLifecycleTests): a key rotated seconds after the
    /// login's fetch made the next refresh fail for good (login required) for a whole minute.
    @Test func keyRotatedSoonAfterTheFirstFetchIsRefetchedAtOnce() async throws {
        let (cache, time) = try rotatingCache()
        #expect(try await cache.candidates(kid: "old", algorithm: .es256).count == 1)
        time.advance(.seconds(2))
        #expect(try await cache.candidates(kid: "new", algorithm: .es256).first?.kid == "new")
        #expect(await cache.fetchCount == 2)
        // The refetch is what is rate-limited: another unknown kid within the minute fetches nothing.
        await #expect(throws: OIDCError.idToken(.unknownKeyRefetchDeferred(kid: "ghost", retryAfter: .seconds(60)))) {
            try await cache.candidates(kid: "ghost", algorithm: .es256)
        }
        #expect(await cache.fetchCount == 2)
    }

    @Test func unknownKidAfterRefetchIsRefusedAndNotRefetchedWithinTheRateLimit() async throws {
        let key = try TestSigningKey(.p256, kid: "k1")
        let transport = FakeTransport()
        transport.on(jwksURL, try jwks([key]))
        let time = TestTime()
        let cache = JWKSCache(jwksURI: jwksURL, transport: transport, time: time.time)
        _ = try await cache.candidates(kid: "k1", algorithm: .es256)
        time.advance(.seconds(61))
        // Allowed one refetch: still unknown.
        #expect(try await cache.candidates(kid: "ghost", algorithm: .es256).isEmpty)
        #expect(await cache.fetchCount == 2)
        // Inside the rate limit: no further fetch, however many tokens arrive, and a passing failure
        // (the key may be a rotation not seen yet), never one that ends the account's grant.
        for _ in 0..<5 {
            do {
                _ = try await cache.candidates(kid: "ghost", algorithm: .es256)
                Issue.record("must fail while the refetch is rate-limited")
            } catch {
                #expect(error.disposition == .transient(retryAfter: .seconds(60)))
            }
        }
        #expect(await cache.fetchCount == 2)
        time.advance(.seconds(61))
        _ = try await cache.candidates(kid: "ghost", algorithm: .es256)
        #expect(await cache.fetchCount == 3)
        #expect(transport.requests.allSatisfy { $0.method == "GET" && $0.url == jwksURL })
    }

    @Test func validatorReportsUnknownKeyAfterTheRefetch() async throws {
        let published = try TestSigningKey(.p256, kid: "published")
        let rogue = try TestSigningKey(.p256, kid: "rogue")
        let transport = FakeTransport()
        transport.on(jwksURL, try jwks([published]))
        let cache = JWKSCache(jwksURI: jwksURL, transport: transport, time: TestTime().time)
        let token = try rogue.sign(claims: IDTokenValidatorTests.claims())
        await #expect(throws: OIDCError.idToken(.unknownKey(kid: "rogue"))) {
            try await IDTokenValidator(issuer: testIssuer, clientID: "client-1").validate(
                Secret(token), keys: cache, expectation: .login(nonce: "n-123"), accessToken: nil,
                now: IDTokenValidatorTests.now)
        }
        // The set was fetched for this very token: refetching at once could not find more.
        #expect(await cache.fetchCount == 1)
    }

    /// A downloaded set expires (Cache-Control max-age, clamped; 24 h without it): a key the
    /// provider withdrew stops verifying tokens, without an unknown `kid` to trigger the refetch.
    @Test func downloadedSetsExpireByCacheControlThenADay() async throws {
        let old = try TestSigningKey(.p256, kid: "old")
        let new = try TestSigningKey(.p256, kid: "new")
        let transport = FakeTransport()
        transport.on(
            jwksURL,
            .response(
                HTTPResponse(
                    status: 200, headers: HTTPHeaders([("Cache-Control", "public, max-age=600")]),
                    body: try TestSigningKey.jwksJSON([old]))),
            try jwks([new]), try jwks([new]))
        let time = TestTime()
        let cache = JWKSCache(jwksURI: jwksURL, transport: transport, time: time.time)
        #expect(try await cache.candidates(kid: "old", algorithm: .es256).count == 1)
        time.advance(.seconds(599))
        #expect(try await cache.candidates(kid: "old", algorithm: .es256).count == 1)
        #expect(await cache.fetchCount == 1)
        time.advance(.seconds(2))
        // Expired: refetched for this token, which the withdrawn key no longer verifies.
        #expect(try await cache.candidates(kid: "old", algorithm: .es256).isEmpty)
        #expect(await cache.fetchCount == 2, "the expired set was not refetched")
        time.advance(.seconds(24 * 3600 - 1))
        #expect(try await cache.candidates(kid: "new", algorithm: .es256).count == 1)
        #expect(await cache.fetchCount == 2)
        time.advance(.seconds(2))
        #expect(try await cache.candidates(kid: "new", algorithm: .es256).count == 1)
        #expect(await cache.fetchCount == 3, "without Cache-Control a set lives 24 h")
    }

    @Test func cacheControlIsClampedAndBounded() {
        #expect(JWKSCache.maxAge(cacheControl: nil) == .seconds(86_400))
        #expect(JWKSCache.maxAge(cacheControl: "max-age=3600, must-revalidate") == .seconds(3600))
        #expect(JWKSCache.maxAge(cacheControl: "max-age=5") == .seconds(300))
        #expect(JWKSCache.maxAge(cacheControl: "max-age=99999999") == .seconds(86_400))
        #expect(JWKSCache.maxAge(cacheControl: "max-age=99999999999999999999") == .seconds(86_400))
        #expect(JWKSCache.maxAge(cacheControl: "No-Cache") == .seconds(300))
        #expect(JWKSCache.maxAge(cacheControl: "max-age=-1") == .seconds(300))
        #expect(JWKSCache.maxAge(cacheControl: "garbage") == .seconds(86_400))
    }

    @Test func unreachableJWKSIsATransientError() async throws {
        let transport = FakeTransport()
        transport.on(jwksURL, .failure(.timeout("connect")))
        let cache = JWKSCache(jwksURI: jwksURL, transport: transport, time: TestTime().time)
        do {
            _ = try await cache.candidates(kid: "k", algorithm: .es256)
            Issue.record("must fail")
        } catch {
            #expect(error.disposition == .transient(retryAfter: nil))
        }
    }
}

/// A provider that replaced its signing key but kept the `kid`: the cached key fails the signature.
@Suite struct JWKSCacheSameKidRotationTests {
    let jwksURL = "\(testIssuer)/jwks"

    func validate(_ token: String, _ cache: JWKSCache) async throws(OIDCError) {
        _ = try await IDTokenValidator(issuer: testIssuer, clientID: "client-1").validate(
            Secret(token), keys: cache, expectation: .login(nonce: "n-123"), accessToken: nil,
            now: IDTokenValidatorTests.now)
    }

    @Test func keyReplacedUnderTheSameKidIsRefetchedOnceThenRateLimited() async throws {
        let old = try TestSigningKey(.p256, kid: "k1")
        let new = try TestSigningKey(.p256, kid: "k1")
        let rogue = try TestSigningKey(.p256, kid: "k1")
        let transport = FakeTransport()
        transport.on(
            jwksURL, .response(HTTPResponse(status: 200, body: try TestSigningKey.jwksJSON([old]))),
            .response(HTTPResponse(status: 200, body: try TestSigningKey.jwksJSON([new]))))
        let time = TestTime()
        let cache = JWKSCache(jwksURI: jwksURL, transport: transport, time: time.time)
        try await validate(try old.sign(claims: IDTokenValidatorTests.claims()), cache)
        #expect(await cache.fetchCount == 1)
        // The provider now signs with `new`, still "k1": one refetch, and the token is accepted.
        try await validate(try new.sign(claims: IDTokenValidatorTests.claims()), cache)
        #expect(await cache.fetchCount == 2)
        try await validate(try new.sign(claims: IDTokenValidatorTests.claims()), cache)
        #expect(await cache.fetchCount == 2)
        // A forged signature under a known kid cannot make the broker fetch again within the limit.
        for _ in 0..<3 {
            await #expect(throws: OIDCError.idToken(.badSignature)) {
                try await validate(try rogue.sign(claims: IDTokenValidatorTests.claims()), cache)
            }
        }
        #expect(await cache.fetchCount == 2)
        time.advance(.seconds(61))
        await #expect(throws: OIDCError.idToken(.badSignature)) {
            try await validate(try rogue.sign(claims: IDTokenValidatorTests.claims()), cache)
        }
        #expect(await cache.fetchCount == 3)
    }
}
