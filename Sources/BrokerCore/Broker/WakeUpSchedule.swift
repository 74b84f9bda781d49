/// Each account's next wake-up (wall-clock seconds) and the deadline of the one scheduler task that
/// sleeps until the earliest: a sleeping task per account cost ≈ 10 KB each with 1,000 accounts.
/// Owned by the `TokenBroker` actor, which runs the task; times are passed in.
///
/// At most `perSecond` accounts are woken in any wall-clock second (the same second a log line's time
/// falls in); the rest of what is due waits for the next second, earliest first. Tokens signed in
/// together expire together, and after a restart every refresh that fell due while the daemon was
/// down is due at once: without the bound 10,000 such accounts would hit the provider in one burst.
/// Waking late is safe: a machine acts on what is due at the time it is told (`timerFired(now:)`),
/// and a caller whose token expires meanwhile starts its refresh itself.
struct WakeUpSchedule: Sendable {
    /// 10,000 accounts due together are all refreshed within 100 s: inside the 360-s margin of
    /// 1-hour tokens, while the provider sees at most 100 requests a second from this daemon.
    static let defaultPerSecond = 100

    private var wakeUps: [AccountKey: Double] = [:]
    /// What the scheduler task sleeps until; nil when none sleeps.
    private(set) var deadline: Double?
    let perSecond: Int
    /// The wall-clock second (its start) that `firedThisSecond` counts for.
    private var second = -Double.infinity
    private var firedThisSecond = 0
    /// The earliest armed wake-up when known; nil means "scan for it". Kept so that arming 10,000
    /// accounts at start-up does not scan all of them for each one.
    private var earliest: Double?

    init(perSecond: Int = Self.defaultPerSecond) {
        self.perSecond = max(perSecond, 1)
    }

    /// `key`'s wake-up, if armed.
    subscript(key: AccountKey) -> Double? { wakeUps[key] }

    /// (Re)arms `key`'s single wake-up for `at`.
    mutating func arm(_ key: AccountKey, at: Double) {
        let previous = wakeUps.updateValue(at, forKey: key)
        if let known = earliest {
            earliest = previous == known && at > known ? nil : min(known, at)
        } else if wakeUps.count == 1 {
            earliest = at
        }
    }

    /// Forgets `key`'s wake-up (logout, removal). The scheduler may still wake at its deadline; it
    /// then finds nothing due and sleeps until the next.
    mutating func cancel(_ key: AccountKey) {
        if let removed = wakeUps.removeValue(forKey: key), removed == earliest { earliest = nil }
    }

    /// The deadline a new scheduler task must sleep until: the earliest wake-up (or the next second,
    /// when this second's wake-ups are spent), unless the task already sleeping wakes no later (nil:
    /// keep it).
    mutating func reschedule() -> Double? {
        guard let first = earliestWakeUp() else { return nil }
        let next = firedThisSecond >= perSecond ? max(first, second + 1) : first
        if let deadline, deadline <= next { return nil }
        deadline = next
        return next
    }

    /// The scheduler task that slept until `deadline` woke at `now`: the accounts due, earliest first
    /// and at most what is left of this second's `perSecond`, removed (their machines arm again as
    /// they need). nil when that task was superseded by an earlier deadline.
    mutating func fire(deadline fired: Double, now: Double) -> [AccountKey]? {
        guard deadline == fired else { return nil }
        deadline = nil
        let current = now.rounded(.down)
        if current != second { (second, firedThisSecond) = (current, 0) }
        let due = wakeUps.filter { $0.value <= now }
        let woken =
            due.count <= perSecond - firedThisSecond
            ? due.map(\.key)
            : due.sorted { $0.value < $1.value }.prefix(perSecond - firedThisSecond).map(\.key)
        firedThisSecond += woken.count
        for key in woken { wakeUps[key] = nil }
        if !woken.isEmpty { earliest = nil }
        return woken
    }

    private mutating func earliestWakeUp() -> Double? {
        if earliest == nil { earliest = wakeUps.values.min() }
        return earliest
    }
}
