import BrokerProtocol

/// One login the broker started, and what became of it (kept a while after it ends, for `loginStatus`).
struct LoginRecord: Sendable {
    /// Whose login it is: only its owner may see its status (and so its authorization URL).
    let account: AccountKey
    let login: BrokerLogin?
    let started: LoginStarted
    /// The background task awaiting the flow's outcome (drained at shutdown while the code is
    /// being exchanged).
    var task: UInt64?
    var outcome: LoginStatus.Outcome = .pending
    var error: WireError?
    var subject: String?
    /// Started (or joined) with `new_subject`: the login may sign in another user than the
    /// account's current one (`LoginSubjectCheck`).
    var allowsNewSubject = false
    /// Parked `loginStatus` long-polls.
    var waiters: [UInt64] = []
    var endedAt: Double?

    func status(id: String) -> LoginStatus {
        LoginStatus(loginID: id, account: account.name, outcome: outcome, error: error, subject: subject)
    }
}

/// The broker's logins by id: which account (and so which owner) each belongs to, the starts in
/// progress that a second `startLogin` joins, each login's parked long-polls, and how long an ended
/// login stays visible. Owned by the `TokenBroker` actor; it never awaits, and the only effect it
/// has is the flows' own cancel at shutdown. Times are wall-clock seconds, passed in.
struct LoginRegistry: Sendable {
    /// Finished logins are kept this long for `loginStatus`.
    static let recordLifetime: Double = 600

    private var records: [String: LoginRecord] = [:]
    /// Logins being started, so a second `startLogin` for the account joins the first.
    private var starts: [AccountKey: Task<Result<LoginStarted, WireError>, Never>] = [:]

    /// What a second start joins: the account's pending login `loginID`, while it is still pending.
    func joinable(_ loginID: String?) -> LoginStarted? {
        loginID.flatMap(pending)?.started
    }

    /// The start in progress for `key`, which a second `startLogin` awaits instead of starting another.
    func start(for key: AccountKey) -> Task<Result<LoginStarted, WireError>, Never>? { starts[key] }

    /// Sets (or, with nil, clears once it has finished) `key`'s start in progress.
    mutating func setStart(_ task: Task<Result<LoginStarted, WireError>, Never>?, for key: AccountKey) {
        starts[key] = task
    }

    /// Records a login that has started, and forgets those that ended over `recordLifetime` ago.
    mutating func add(_ record: LoginRecord, id: String, now: Double) {
        let cutoff = now - Self.recordLifetime
        records = records.filter { _, record in record.endedAt.map { $0 > cutoff } ?? true }
        records[id] = record
    }

    /// A start with `new_subject` that joined pending login `id`: the owner accepts another user.
    mutating func allowNewSubject(login id: String) {
        if records[id]?.outcome == .pending { records[id]?.allowsNewSubject = true }
    }

    /// The background task that awaits login `id`'s outcome.
    mutating func setTask(_ task: UInt64?, login id: String) { records[id]?.task = task }

    /// Login `id` while it is pending (nil once it has ended, or when there is none).
    func pending(_ id: String) -> LoginRecord? {
        guard let record = records[id], record.outcome == .pending else { return nil }
        return record
    }

    /// Ends pending login `id` with `outcome`: its status, and the parked long-polls to answer with
    /// it. nil when the login already ended (the first ending wins) or does not exist.
    mutating func end(
        _ id: String, outcome: LoginStatus.Outcome, error: WireError?, subject: String?, now: Double
    ) -> (status: LoginStatus, waiters: [UInt64])? {
        guard var record = pending(id) else { return nil }
        record.outcome = outcome
        record.error = error
        record.subject = subject
        record.endedAt = now
        let waiters = record.waiters
        record.waiters = []
        records[id] = record
        return (record.status(id: id), waiters)
    }

    /// The pending login of `owner` that `url` (a private-use scheme or pasted loopback redirect) is for: the one whose
    /// flow claims it (its redirect URI and `state`, compared in constant time). Asking changes no login.
    func claiming(_ url: String, owner: UInt32) -> String? {
        records.first { _, record in
            record.account.owner == owner && record.outcome == .pending && record.login?.flow.claimsRedirect(url) == true
        }?.key
    }

    /// Login `id`'s status for `owner`; nil for another owner's login, exactly as for none.
    func status(_ id: String, owner: UInt32) -> LoginStatus? {
        guard let record = records[id], record.account.owner == owner else { return nil }
        return record.status(id: id)
    }

    /// Parks long-poll `waiter` on login `id`: `end` hands it back with the outcome.
    mutating func addWaiter(_ waiter: UInt64, login id: String) { records[id]?.waiters.append(waiter) }

    /// A long-poll that stopped waiting (its `wait` passed): removed, with the status to answer it.
    mutating func removeWaiter(_ waiter: UInt64, login id: String) -> LoginStatus? {
        guard records[id] != nil else { return nil }
        records[id]?.waiters.removeAll { $0 == waiter }
        return records[id]?.status(id: id)
    }

    /// Shutdown: cancels every pending login unless its code is being exchanged at the token
    /// endpoint; returns the tasks of those, to drain like a refresh (the provider has issued their
    /// tokens, and with rotation nothing else will do).
    func cancelUnlessExchanging() -> [UInt64] {
        records.values.compactMap { record in
            guard record.outcome == .pending, record.login?.flow.cancelUnlessExchanging() == false else { return nil }
            return record.task
        }
    }
}
