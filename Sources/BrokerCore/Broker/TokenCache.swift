import BrokerCrypto
import BrokerProtocol
import BrokerStore
import Synchronization

/// The synchronous fast path's memory: per account, the grant and the instant until which it may be
/// served without asking the actor (expiry − refresh margin). Written by the `TokenBroker` actor
/// whenever an account's tokens change; read on the socket server's connection threads.
final class TokenCache: Sendable {
    /// The tokens stay `Secret`s (redacted in any print, wiped when released) until the moment a
    /// caller is served; the wire grant is built then, from the access token only.
    /// Replaced whole (`set`), never changed in place: `accessTokenHash` is the hash of `tokens`.
    /// A class, so the dictionary's slots (up to two per account) are a pointer each instead of
    /// the entry's 128 bytes (docs/BENCHMARKS-archive.md, "Memory per account").
    final class Entry: Sendable {
        let tokens: TokenSet
        /// The effective expiry in RFC 3339, as the grant reports it.
        let expiresAt: String?
        /// Wall-clock Unix seconds; `.infinity` for a token that never expires.
        let serveUntil: Double
        /// A DPoP account's `ath` for this access token (`DPoPProof.accessTokenHash`), hashed once
        /// when the entry is made instead of for every proof; nil for Bearer tokens.
        let accessTokenHash: String?
        /// The account's authorization-server endpoints no proof is made for (`AuthorizationServerTargets`).
        let proofRefusals: AuthorizationServerTargets

        init(tokens: TokenSet, expiresAt: String?, serveUntil: Double, proofRefusals: AuthorizationServerTargets = .init(nil)) {
            // Nothing served from here reads the ID token: an entry must not keep one in memory.
            // (A set whose ID token is `.stored` holds none, and is shared with the machine's.)
            var tokens = tokens
            if case .token = tokens.idToken { tokens.idToken = nil }
            self.tokens = tokens
            self.expiresAt = expiresAt
            self.serveUntil = serveUntil
            self.proofRefusals = proofRefusals
            accessTokenHash = tokens.dpopKey == nil ? nil : DPoPProof.accessTokenHash(tokens.accessToken)
        }

        var grant: TokenGrant { tokens.grant(expiresAt: expiresAt) }
    }

    /// Keyed by owner and name, so a caller can only ever hit its own account's entry.
    /// Read-shared: every token served reads it (`ReadMostlyLock` says why not a Mutex).
    private let entries = ReadMostlyLock<[AccountKey: Entry]>([:])
    /// Tokens handed out from the cache (for `authbroker_tokens_served_total`).
    let hits = Atomic<Int>(0)

    /// The grant for `account` when it may be served at `now` without network, else nil.
    func grant(account: AccountKey, now: Double) -> TokenGrant? {
        servable(account: account, now: now)?.grant
    }

    /// The entry for `account` when it may be served at `now` without network (counted as a
    /// served token), else nil. The DPoP proof fast path signs with its tokens' key.
    func servable(account: AccountKey, now: Double) -> Entry? {
        let found = entries.read { entries -> Entry? in
            guard let entry = entries[account], now < entry.serveUntil else { return nil }
            return entry
        }
        guard let found else { return nil }
        hits.add(1, ordering: .relaxed)
        return found
    }

    func set(_ entry: Entry?, account: AccountKey) {
        entries.write { $0[account] = entry }
    }

    func removeAll() {
        entries.write { $0.removeAll() }
    }
}
