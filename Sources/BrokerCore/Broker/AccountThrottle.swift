import Synchronization

/// At most one go per account and interval, for work whose rate someone outside chooses (a
/// resource server's answers): a locked table, usable off the actor.
final class AccountThrottle: Sendable {
    let interval: Duration
    private let last = Mutex<[AccountKey: ContinuousClock.Instant]>([:])

    init(interval: Duration) { self.interval = interval }

    /// True when the account's last go is at least `interval` ago (or there was none); records this one.
    func allow(_ key: AccountKey, now: ContinuousClock.Instant = .now) -> Bool {
        last.withLock { table in
            if let previous = table[key], now - previous < interval { return false }
            if table.count >= 4096 { table.removeAll() }  // bounded: forgetting only allows one more go
            table[key] = now
            return true
        }
    }
}
