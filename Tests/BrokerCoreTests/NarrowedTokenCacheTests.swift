import BrokerCrypto
import BrokerProtocol
import BrokerStore
import Testing

@testable import BrokerCore

/// The narrowed-token cache: one entry per key with its own expiry, dropped when expired or
/// voided by a new generation, bounded per account; and the refresh lease that serializes every
/// use of an account's refresh token.
@Suite struct NarrowedTokenCacheTests {
    let work = AccountKey(owner: 1000, name: "work")
    let other = AccountKey(owner: 1000, name: "other")

    func key(_ account: AccountKey, scope: String? = nil, resource: String? = nil) throws -> NarrowedTokenCache.Key {
        NarrowedTokenCache.Key(account: account, narrowing: try TokenNarrowing(scope: scope, resource: resource, audience: nil))
    }

    func entry(_ token: String, expiresAt: Double?, refreshAt: Double, generation: UInt64 = 0, asked: Double = 0)
        -> NarrowedTokenCache.Entry
    {
        NarrowedTokenCache.Entry(
            tokens: TokenSet(accessToken: Secret(token), scope: "read", expiresAt: expiresAt, obtainedAt: 0),
            generation: generation, expiresAt: expiresAt, refreshAt: refreshAt, lastRequestedAt: asked)
    }

    @Test func eachKeyHasItsOwnTokenAndExpiry() throws {
        var cache = NarrowedTokenCache()
        let a = try key(work, resource: "https://a.example/")
        let b = try key(work, resource: "https://b.example/")
        cache.store(entry("token-a", expiresAt: 600, refreshAt: 540), for: a)
        cache.store(entry("token-b", expiresAt: 300, refreshAt: 270), for: b)
        #expect(cache.fresh(a, generation: 0, now: 100, minTTL: nil)?.grant.accessToken == "token-a")
        #expect(cache.fresh(b, generation: 0, now: 100, minTTL: nil)?.grant.accessToken == "token-b")
        // Inside b's margin only b is due; min_ttl beyond a's lifetime makes a due too.
        #expect(cache.fresh(b, generation: 0, now: 280, minTTL: nil) == nil)
        #expect(cache.fresh(a, generation: 0, now: 280, minTTL: nil) != nil)
        #expect(cache.fresh(a, generation: 0, now: 280, minTTL: 400) == nil)
        #expect(
            try cache.fresh(key(work, scope: "read", resource: "https://a.example/"), generation: 0, now: 100, minTTL: nil) == nil
        )
        #expect(try cache.fresh(key(other, resource: "https://a.example/"), generation: 0, now: 100, minTTL: nil) == nil)
    }

    @Test func expiredAndIdleKeysAreDroppedAndANewGenerationVoidsThem() throws {
        var cache = NarrowedTokenCache()
        cache.store(entry("short", expiresAt: 300, refreshAt: 270), for: try key(work, scope: "a"))
        cache.store(entry("long", expiresAt: 6_000, refreshAt: 5_400), for: try key(work, scope: "b"))
        cache.store(entry("no-lifetime", expiresAt: nil, refreshAt: .infinity, asked: 0), for: try key(work, scope: "c"))
        cache.prune(now: 301)
        #expect(cache.count(account: work) == 2)
        cache.prune(now: NarrowedTokenCache.idleLimit + 1)
        #expect(cache.count(account: work) == 1)
        #expect(try cache.fresh(key(work, scope: "b"), generation: 1, now: 400, minTTL: nil) == nil, "minted before a new login")
        cache.remove(account: work)
        #expect(cache.count(account: work) == 0)
    }

    @Test func theLeastRecentlyAskedKeyGoesWhenAnAccountIsFull() throws {
        var cache = NarrowedTokenCache()
        for index in 0..<NarrowedTokenCache.maximumPerAccount {
            cache.store(
                entry("t\(index)", expiresAt: 9_000, refreshAt: 8_000, asked: Double(index + 10)),
                for: try key(work, scope: "s\(index)"))
        }
        _ = cache.fresh(try key(work, scope: "s0"), generation: 0, now: 5_000, minTTL: nil)  // s0 asked for last
        cache.store(entry("new", expiresAt: 9_000, refreshAt: 8_000, asked: 5_001), for: try key(work, scope: "new"))
        #expect(cache.count(account: work) == NarrowedTokenCache.maximumPerAccount)
        #expect(try cache.fresh(key(work, scope: "s0"), generation: 0, now: 5_002, minTTL: nil) != nil)
        #expect(try cache.fresh(key(work, scope: "s1"), generation: 0, now: 5_002, minTTL: nil) == nil, "s1 was the oldest")
    }

    @Test func aRefreshLeaseIsPerAccountAndFreedWhenNobodyWaits() {
        var leases = RefreshLeases()
        let first = leases.tryAcquire(work)
        let second = leases.tryAcquire(work)
        let otherAccount = leases.tryAcquire(other)
        #expect(first && !second && otherAccount, "accounts do not wait for each other")
        let next = leases.release(work)
        #expect(next == nil)
        #expect(!leases.isHeld(work))
        #expect(leases.isHeld(other))
    }
}
