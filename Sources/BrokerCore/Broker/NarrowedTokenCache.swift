import BrokerProtocol
import BrokerStore
import WireFormats

/// Narrowed access tokens in memory, one per (account, scope set, resources, audience) key, each
/// with its own expiry. Memory only, by design: a narrowed token is cheap to mint again from the
/// account's refresh token, which stays in the vault as the one durable secret; after a restart the
/// first request for a key refreshes once. No timer refreshes a key: it is refreshed when someone
/// asks for it and it is inside its refresh margin, so keys nobody uses cause no refreshes and are
/// dropped once expired (or idle for `idleLimit` when the provider gave no lifetime).
struct NarrowedTokenCache: Sendable {
    struct Key: Hashable, Sendable {
        var account: AccountKey
        var narrowing: TokenNarrowing
    }

    struct Entry: Sendable {
        /// The narrowed access token, its scope and expiry: never a refresh or ID token.
        var tokens: TokenSet
        /// The account generation it was minted under: a logout or a new login voids it.
        var generation: UInt64
        /// Effective expiry (wall-clock seconds); nil: the provider gave no lifetime.
        var expiresAt: Double?
        /// From then on a request refreshes the key (expiry − refresh margin).
        var refreshAt: Double
        var lastRequestedAt: Double

        var grant: TokenGrant { tokens.grant(expiresAt: expiresAt.map { RFC3339.format(unixSeconds: $0) }) }
    }

    /// Per account, the most keys kept; the least recently asked for goes first.
    static let maximumPerAccount = 1024
    /// A key without a stated lifetime is dropped after this long without a request.
    static let idleLimit: Double = 3600

    private(set) var entries: [Key: Entry] = [:]

    /// The entry for `key` when it can be served at `now` with `minTTL` seconds left, marking it
    /// asked for; nil when it is missing, due or minted under another generation.
    mutating func fresh(_ key: Key, generation: UInt64, now: Double, minTTL: Double?) -> Entry? {
        guard var entry = entries[key], entry.generation == generation, now < entry.refreshAt else { return nil }
        if let minTTL, let expiry = entry.expiresAt, expiry - now < minTTL { return nil }
        entry.lastRequestedAt = now
        entries[key] = entry
        return entry
    }

    /// Keeps `entry` for `key`, evicting the account's least recently asked-for key when full.
    mutating func store(_ entry: Entry, for key: Key) {
        entries[key] = entry
        let mine = entries.filter { $0.key.account == key.account }
        guard mine.count > Self.maximumPerAccount,
            let oldest = mine.min(by: { $0.value.lastRequestedAt < $1.value.lastRequestedAt })
        else { return }
        entries[oldest.key] = nil
    }

    /// Drops every key that expired, or sat unasked for `idleLimit` without a stated lifetime.
    mutating func prune(now: Double) {
        entries = entries.filter { _, entry in
            if let expiry = entry.expiresAt { return now < expiry }
            return now - entry.lastRequestedAt < Self.idleLimit
        }
    }

    /// Forgets every key of `account` (logout, removal, a new login, no tokens).
    mutating func remove(account: AccountKey) {
        entries = entries.filter { $0.key.account != account }
    }

    func count(account: AccountKey) -> Int {
        entries.keys.filter { $0.account == account }.count
    }
}
