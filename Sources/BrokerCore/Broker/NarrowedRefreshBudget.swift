/// How many narrowed refreshes each account may start: a token bucket per account, `burst` at
/// first, refilled at `perMinute`. Each narrowed refresh spends the account's refresh token and a
/// request at its provider, so a caller naming a new narrowing in a loop (60 in a tenth of a second
/// before this) must not turn the daemon into a token mint. Only refreshes count: a narrowed token
/// still in `NarrowedTokenCache` is served without spending. Time is the broker's wall clock.
struct NarrowedRefreshBudget: Sendable {
    /// How many narrowed refreshes one account may start back to back.
    var burst: Double
    /// How many more it may start each minute after that.
    var perMinute: Double
    private var buckets: [AccountKey: (tokens: Double, at: Double)] = [:]

    init(burst: Int = 10, perMinute: Int = 6) {
        self.burst = Double(max(1, burst))
        self.perMinute = Double(max(1, perMinute))
    }

    /// Spends one refresh of `account` at `now`: nil when it may go ahead, else the whole seconds
    /// until the next one may (the answer's `Retry-After`).
    mutating func spend(_ account: AccountKey, now: Double) -> Int? {
        var bucket = buckets[account] ?? (burst, now)
        // A clock that stepped back refills nothing (and takes nothing away).
        bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.at) * perMinute / 60)
        bucket.at = now
        guard bucket.tokens >= 1 else {
            buckets[account] = bucket
            return max(1, Int(((1 - bucket.tokens) * 60 / perMinute).rounded(.up)))
        }
        bucket.tokens -= 1
        buckets[account] = bucket
        return nil
    }

    /// Forgets `account` (removed).
    mutating func remove(account: AccountKey) { buckets[account] = nil }
}
