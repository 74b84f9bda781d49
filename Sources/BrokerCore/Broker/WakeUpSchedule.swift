/// Each account's next wake-up (wall-clock seconds) and the deadline of the one scheduler task that
/// sleeps until the earliest: a sleeping task per account cost ≈ 10 KB each with 1,000 accounts.
/// Owned by the `TokenBroker` actor, which runs the task; times are passed in.
struct WakeUpSchedule: Sendable {
    private var wakeUps: [AccountKey: Double] = [:]
    /// What the scheduler task sleeps until; nil when none sleeps.
    private(set) var deadline: Double?

    /// `key`'s wake-up, if armed.
    subscript(key: AccountKey) -> Double? { wakeUps[key] }

    /// (Re)arms `key`'s single wake-up for `at`.
    mutating func arm(_ key: AccountKey, at: Double) { wakeUps[key] = at }

    /// Forgets `key`'s wake-up (logout, removal). The scheduler may still wake at its deadline; it
    /// then finds nothing due and sleeps until the next.
    mutating func cancel(_ key: AccountKey) { wakeUps[key] = nil }

    /// The deadline a new scheduler task must sleep until: the earliest wake-up, unless the task
    /// already sleeping wakes no later (nil: keep it).
    mutating func reschedule() -> Double? {
        guard let next = wakeUps.values.min() else { return nil }
        if let deadline, deadline <= next { return nil }
        deadline = next
        return next
    }

    /// The scheduler task that slept until `deadline` woke at `now`: the accounts due, removed (their
    /// machines arm again as they need). nil when that task was superseded by an earlier deadline.
    mutating func fire(deadline fired: Double, now: Double) -> [AccountKey]? {
        guard deadline == fired else { return nil }
        deadline = nil
        let due = wakeUps.filter { $0.value <= now }.map(\.key)
        for key in due { wakeUps[key] = nil }
        return due
    }
}
