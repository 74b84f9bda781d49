import BrokerCrypto
import BrokerProtocol
import BrokerStore
import Synchronization
import Testing

@testable import BrokerCore

#if canImport(Glibc)
    import Glibc
#endif

/// The fast path's snapshot holds the access token as a `Secret` (docs/security.md, "Secrets in
/// memory"): nothing that prints or reflects a cached entry shows the token; a hit reveals it.
@Suite struct TokenCacheTests {
    /// The entries dictionary has up to two slots per account: a pointer each, not the entry
    /// (docs/BENCHMARKS-archive.md, "Memory per account").
    @Test func anEntryIsAReference() {
        #expect((TokenCache.Entry.self as Any.Type) is AnyObject.Type)
    }

    @Test func cachedAccessTokensAreSecretsUntilServed() {
        let value = "at-cached-7f3a9"
        let refresh = "rt-cached-9c1d2"
        let tokens = TokenSet(accessToken: Secret(value), refreshToken: Secret(refresh), scope: "openid", obtainedAt: 0)
        let entry = TokenCache.Entry(tokens: tokens, expiresAt: "2030-01-01T00:00:00Z", serveUntil: 100)
        var dumped = ""
        dump(entry, to: &dumped)
        for text in [String(describing: entry), String(reflecting: entry), dumped] {
            #expect(!text.contains(value), "the cached token printed: \(text)")
            #expect(!text.contains(refresh), "the cached refresh token printed: \(text)")
        }
        let cache = TokenCache()
        let work = AccountKey(owner: 1001, name: "work")
        cache.set(entry, account: work)
        #expect(cache.grant(account: AccountKey(owner: 1002, name: "work"), now: 99) == nil, "served to another owner")
        #expect(
            cache.grant(account: work, now: 99)
                == TokenGrant(
                    accessToken: value, tokenType: "Bearer", expiresAt: "2030-01-01T00:00:00Z", scope: "openid"))
        #expect(cache.grant(account: work, now: 100) == nil, "served past serveUntil")
        #expect(cache.hits.load(ordering: .relaxed) == 1)
    }
}

/// The lock behind the token cache and the caller policies: readers share it, a writer excludes
/// everyone (a lost update or a torn read would show here).
@Suite struct ReadMostlyLockTests {
    @Test func writersExcludeEachOtherAndReadersSeeWholeValues() async {
        struct Pair: Sendable { var a = 0, b = "0" }
        let lock = ReadMostlyLock(Pair())
        let (writers, increments) = (4, 5_000)
        let torn = await APIRouterHotPathTests.onThreads(writers * 2) { index in
            if index < writers {
                for _ in 0..<increments {
                    lock.write {
                        $0.a += 1
                        $0.b = String($0.a)
                    }
                }
                return 0
            }
            return (0..<increments).count { _ in lock.read { String($0.a) != $0.b } }
        }
        #expect(lock.read { $0.a } == writers * increments, "lost updates")
        #expect(torn.allSatisfy { $0 == 0 }, "a reader saw a half-written value")
    }

    /// A logout or refresh must not wait behind token requests: with readers always holding the
    /// lock (each 2 ms, three overlapping), a writer still gets in — glibc's default rwlock lets
    /// such readers hold it off until they stop, here the 10 s bound.
    @Test func aWriterIsNotHeldOffByOverlappingReaders() async {
        let lock = ReadMostlyLock(0)
        let written = Atomic<Bool>(false)
        let deadline = ContinuousClock.now + .seconds(10)
        let results = await APIRouterHotPathTests.onThreads(4) { index in
            guard index == 0 else {
                usleep(UInt32(index) * 700)  // staggered, so some reader always holds the lock
                while !written.load(ordering: .acquiring), ContinuousClock.now < deadline {
                    lock.read { _ in usleep(2_000) }
                }
                return true
            }
            usleep(50_000)
            lock.write { $0 += 1 }
            written.store(true, ordering: .releasing)
            return ContinuousClock.now < deadline
        }
        #expect(results[0], "the writer waited until the readers stopped")
        #expect(lock.read { $0 } == 1)
    }
}
