import BrokerProtocol
import Synchronization

/// The synchronous fast path's memory: per account, the grant and the instant until which it may be
/// served without asking the actor (expiry − refresh margin). Written by the `TokenBroker` actor
/// whenever an account's tokens change; read on the socket server's connection threads.
final class TokenCache: Sendable {
    struct Entry: Sendable {
        var grant: TokenGrant
        /// Wall-clock Unix seconds; `.infinity` for a token that never expires.
        var serveUntil: Double
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// Tokens handed out from the cache (for `authbroker_tokens_served_total`).
    let hits = Atomic<Int>(0)

    /// The grant for `account` when it may be served at `now` without network, else nil.
    func grant(account: String, now: Double) -> TokenGrant? {
        let found = entries.withLock { entries -> TokenGrant? in
            guard let entry = entries[account], now < entry.serveUntil else { return nil }
            return entry.grant
        }
        if found != nil { hits.add(1, ordering: .relaxed) }
        return found
    }

    func set(_ entry: Entry?, account: String) {
        entries.withLock { $0[account] = entry }
    }

    func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
