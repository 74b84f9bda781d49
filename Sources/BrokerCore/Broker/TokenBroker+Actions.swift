import BrokerProtocol
import BrokerStore
import FoundationEssentials

// Feeding events to the state machines and performing the actions they return, in order.
extension TokenBroker {
    typealias Action = AccountStateMachine.Action

    /// Feeds one event to `key`'s machine (at `time`, default now), performs the actions, then
    /// refreshes the fast-path snapshot, the metrics and the stored status. False: no such account.
    @discardableResult
    func event(
        _ key: AccountKey, at time: Double? = nil, _ body: (inout AccountStateMachine, Double) -> [Action]
    ) -> Bool {
        guard accounts[key] != nil else { return false }
        let time = time ?? now()
        let actions = body(&accounts[key]!.machine, time)
        perform(actions, account: key)
        sync(key, now: time)
        return true
    }

    /// Performs `actions` in order. Nothing here awaits: slow work (network, waits) runs in tracked
    /// tasks that report back with a new event, and vault writes are queued on the vault thread in
    /// this order, so the sequence the machine asked for is the sequence that reaches the disk.
    func perform(_ actions: [Action], account key: AccountKey) {
        for action in actions {
            switch action {
            case .serveToken(let tokens, let ids):
                let expiry = options.refreshPolicy.effectiveExpiry(of: tokens)
                let grant = tokens.grant(expiresAt: expiry.map { RFC3339.format(unixSeconds: $0) })
                for id in ids { answers.deliver(.success(grant), to: id.rawValue) }
                counters.tokensServed(ids.count)
            case .fail(let error, let ids):
                for id in ids where answers.deliver(.failure(error), to: id.rawValue) { counters.error(error.code) }
            case .waitForRefresh:
                break  // the caller parks itself when no answer was delivered
            case .startRefresh(_, let generation, let attempt):
                background(drain: true) { broker in await broker.refresh(key, generation: generation, attempt: attempt) }
            case .scheduleWakeUp(let at):
                arm(key, at: at)
            case .cancelWakeUp:
                wakeUps[key] = nil
            case .persistTokens(let tokens):
                persistIfNeeded(tokens, account: key)
            case .deleteTokens:
                deleteTokens(account: key)
            case .revoke(let tokens):
                background { broker in _ = await broker.revoke(tokens, account: key) }
            case .cancelLogin(let loginID, let reason):
                cancelLogin(loginID, reason: reason)
            case .notifyUser(let note):
                notifier.notify(note, owner: key.owner)
            }
        }
    }

    /// Brings the fast-path snapshot, the account-state gauge and the stored status up to date.
    func sync(_ key: AccountKey, now time: Double) {
        guard let runtime = accounts[key] else {
            cache.set(nil, account: key)
            counters.state(nil, account: key)
            return
        }
        let machine = runtime.machine
        let policy = options.refreshPolicy
        var entry: TokenCache.Entry?
        if let tokens = machine.currentTokens, policy.isValid(tokens, at: time) {
            let expiry = policy.effectiveExpiry(of: tokens)
            let serveUntil = expiry.map { $0 - policy.margin(lifetime: policy.lifetime(of: tokens) ?? 0) } ?? .infinity
            entry = TokenCache.Entry(
                tokens: tokens, expiresAt: expiry.map { RFC3339.format(unixSeconds: $0) }, serveUntil: serveUntil)
        }
        cache.set(entry, account: key)
        counters.state(machine.wireState(now: time), account: key)
        let status = TokenStatus(
            lastRefreshAt: machine.lastRefreshAt, lastErrorCode: machine.lastError?.code.rawValue,
            lastErrorMessage: machine.lastError?.message, subject: runtime.subject)
        guard status != runtime.persistedStatus else { return }
        accounts[key]?.persistedStatus = status
        let id = runtime.id
        let logError = vaultErrorLogger(key)
        worker.enqueueReporting({ try $0.updateStatus(status, accountID: id) }) { error in
            guard let error else { return }
            logError(error)
            Task { await self.statusWriteFailed(status, account: key, id: id) }
        }
    }

    /// A status that did not reach the vault is written again at the next change of the account.
    private func statusWriteFailed(_ status: TokenStatus, account key: AccountKey, id: Int64) {
        guard accounts[key]?.id == id, accounts[key]?.persistedStatus == status else { return }
        accounts[key]?.persistedStatus = nil
    }

    // MARK: Persistence

    /// Commits `tokens` and the status that goes with them, in one transaction, before the machine
    /// hears of them. Returns false when the write failed (logged); the caller then tells the machine
    /// nothing was stored, and its `persistTokens` retries.
    func persist(_ tokens: TokenSet, status: TokenStatus, account key: AccountKey) async -> Bool {
        guard let id = accounts[key]?.id else { return false }
        do {
            try await worker.perform { vault in
                try vault.batch {
                    try vault.saveTokens(tokens, accountID: id)
                    try vault.updateStatus(status, accountID: id)
                }
            }
        } catch {
            logger.with(key).error("cannot store the new tokens, keeping them in memory and retrying: \(error)")
            return false
        }
        accounts[key]?.persistedTokens = tokens
        accounts[key]?.persistedStatus = status
        return true
    }

    /// `persistTokens`: a no-op for a set already committed; otherwise a save queued in order with
    /// the other vault writes, whose outcome goes back to the machine (`tokensStored` /
    /// `tokensNotStored`, which retries a failed save with backoff).
    private func persistIfNeeded(_ tokens: TokenSet, account key: AccountKey) {
        guard let runtime = accounts[key], runtime.persistedTokens != tokens else { return }
        let id = runtime.id
        worker.enqueueReporting({ try $0.saveTokens(tokens, accountID: id) }) { error in
            Task { await self.saveFinished(tokens, account: key, id: id, error: error) }
        }
    }

    /// The outcome of a queued token save, for the account it was made for (not a newer one of the name).
    private func saveFinished(_ tokens: TokenSet, account key: AccountKey, id: Int64, error: (any Error)?) {
        guard let runtime = accounts[key], runtime.id == id else { return }
        if let error {
            logger.with(key).error("cannot store the tokens, keeping them in memory and retrying: \(error)")
            event(key) { machine, now in machine.tokensNotStored(tokens, reason: "\(error)", now: now) }
            return
        }
        if runtime.machine.currentTokens == tokens { accounts[key]?.persistedTokens = tokens }
        if runtime.machine.unsaved != nil { logger.with(key).info("the tokens are saved again") }
        event(key) { machine, now in machine.tokensStored(tokens, now: now) }
    }

    /// Shutdown: one last save of every account whose current tokens are not in the vault.
    func saveUnsavedTokens() async {
        for (key, runtime) in accounts {
            guard let tokens = runtime.machine.currentTokens, runtime.persistedTokens != tokens else { continue }
            let id = runtime.id
            do {
                try await worker.perform { vault in try vault.saveTokens(tokens, accountID: id) }
                accounts[key]?.persistedTokens = tokens
                logger.with(key).info("unsaved tokens saved at shutdown")
            } catch {
                logger.with(key).error(
                    "the tokens could not be saved before the stop (\(error)): the account will need `authctl login` after the restart")
            }
        }
    }

    private func deleteTokens(account key: AccountKey) {
        guard let id = accounts[key]?.id else { return }
        accounts[key]?.persistedTokens = nil
        accounts[key]?.persistedStatus = nil  // the row (status included) goes: rewrite it at the next sync
        worker.enqueue({ try $0.deleteTokens(accountID: id) }, onError: vaultErrorLogger(key))
    }

    func vaultErrorLogger(_ key: AccountKey) -> @Sendable (any Error) -> Void {
        let logger = logger.with(key)
        return { error in logger.error("token store write failed: \(error)") }
    }

    // MARK: Timers

    /// (Re)arms `key`'s single wake-up for the wall-clock time `at`.
    private func arm(_ key: AccountKey, at: Double) {
        guard !isShutDown else { return }
        wakeUps[key] = at
        reschedule()
    }

    /// Makes the scheduler sleep until the earliest wake-up (unless it already wakes no later).
    private func reschedule() {
        guard !isShutDown, let next = wakeUps.values.min() else { return }
        if let scheduler, scheduler.deadline <= next { return }
        scheduler?.task.cancel()
        let task = Task {
            do { try await self.sleep(until: next) } catch { return }
            self.schedulerFired(deadline: next)
        }
        scheduler = (next, task)
    }

    /// Fires every wake-up that is due, then sleeps until the next one.
    private func schedulerFired(deadline: Double) {
        guard scheduler?.deadline == deadline else { return }  // superseded by an earlier arming
        scheduler = nil
        let time = now()
        for (key, at) in wakeUps where at <= time {
            wakeUps[key] = nil
            event(key, at: time) { machine, now in machine.timerFired(now: now) }
        }
        reschedule()
    }
}
