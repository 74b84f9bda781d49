/// When each parked token request gives up (`Options.tokenWaitTimeout`), and the deadline of the one
/// watchdog task that abandons those still waiting then. Owned by the `TokenBroker` actor, which runs
/// the task; times are passed in.
///
/// A task per parked request — sleeping on the clock, cancelled when the answer came — woke a pool
/// thread and Dispatch's timer thread as the request parked and again as it was answered: beside
/// every forced refresh, on the cores the refresh needs
/// (docs/BENCHMARKS-archive.md, "Forced refresh: the commit's mechanics").
/// Every deadline is "now + the same timeout", so a request parked after another never needs an
/// earlier watchdog than the one already sleeping, and an answered request only leaves the table.
struct ParkedDeadlines: Sendable {
    private var deadlines: [UInt64: (account: AccountKey, at: Double)] = [:]
    /// What the watchdog task sleeps until; nil when none sleeps.
    private(set) var watchdog: Double?

    /// Request `id` of `account` parks until `deadline`. Returns the deadline a new watchdog task must
    /// sleep until, or nil when the one sleeping wakes no later.
    mutating func park(_ id: UInt64, account: AccountKey, until deadline: Double) -> Double? {
        deadlines[id] = (account, deadline)
        if let watchdog, watchdog <= deadline { return nil }
        watchdog = deadline
        return deadline
    }

    /// Request `id` was answered (or abandoned): no watchdog is woken for it.
    mutating func remove(_ id: UInt64) {
        deadlines[id] = nil
    }

    /// The watchdog that slept until `deadline` woke at `now`: the requests whose time is up
    /// (removed), and the deadline the next watchdog must sleep until (nil: nothing is parked). Nil
    /// when that watchdog was superseded by an earlier one.
    mutating func fire(deadline fired: Double, now: Double) -> (due: [(id: UInt64, account: AccountKey)], next: Double?)? {
        guard watchdog == fired else { return nil }
        let due = deadlines.filter { $0.value.at <= now }
        for id in due.keys { deadlines[id] = nil }
        watchdog = deadlines.values.lazy.map(\.at).min()
        return (due.map { (id: $0.key, account: $0.value.account) }, watchdog)
    }

    /// How many requests are parked.
    var count: Int { deadlines.count }
}
