@testable import BrokerCore
import BrokerCrypto
import BrokerProtocol
import BrokerStore
import Testing

/// The fast path's snapshot holds the access token as a `Secret` (docs/security.md, "Secrets in
/// memory"): nothing that prints or reflects a cached entry shows the token; a hit reveals it.
@Suite struct TokenCacheTests {
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
        #expect(cache.grant(account: work, now: 99) == TokenGrant(
            accessToken: value, tokenType: "Bearer", expiresAt: "2030-01-01T00:00:00Z", scope: "openid"))
        #expect(cache.grant(account: work, now: 100) == nil, "served past serveUntil")
        #expect(cache.hits.load(ordering: .relaxed) == 1)
    }
}
