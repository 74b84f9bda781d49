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
                let grant = tokens.grant(expiry: options.refreshPolicy.effectiveExpiry(of: tokens))
                for id in ids { answers.deliver(.success(grant), to: id.rawValue) }
                counters.tokensServed(ids.count)
            case .fail(let error, let ids):
                for id in ids where answers.deliver(.failure(error), to: id.rawValue) { counters.error(error.code) }
            case .waitForRefresh:
                break  // the caller parks itself when no answer was delivered
            case .startRefresh(_, let generation, let attempt):
                background { broker in await broker.refresh(key, generation: generation, attempt: attempt) }
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
                accessToken: tokens.accessToken, tokenType: tokens.tokenType,
                expiresAt: expiry.map { RFC3339.format(unixSeconds: $0) }, scope: tokens.scope, serveUntil: serveUntil)
        }
        cache.set(entry, account: key)
        counters.state(machine.wireState(now: time), account: key)
        let status = TokenStatus(
            lastRefreshAt: machine.lastRefreshAt, lastErrorCode: machine.lastError?.code.rawValue,
            lastErrorMessage: machine.lastError?.message, subject: runtime.subject)
        guard status != runtime.persistedStatus else { return }
        accounts[key]?.persistedStatus = status
        let id = runtime.id
        worker.enqueue({ try $0.updateStatus(status, accountID: id) }, onError: vaultErrorLogger(key))
    }

    // MARK: Persistence

    /// Commits `tokens` (and the status that goes with them) before the machine hears of them.
    /// Returns false when the write failed (logged).
    func persist(_ tokens: AccountTokens, status: TokenStatus, account key: AccountKey) async -> Bool {
        guard let id = accounts[key]?.id else { return false }
        let stored = tokens.stored
        do {
            try await worker.perform { vault in
                try vault.saveTokens(stored, accountID: id)
                try vault.updateStatus(status, accountID: id)
            }
        } catch {
            logger.with(key).error("cannot store the new tokens: \(error)")
            return false
        }
        accounts[key]?.persistedTokens = tokens
        accounts[key]?.persistedStatus = status
        return true
    }

    /// `persistTokens`: normally already done before the event; queued otherwise (e.g. a failed write).
    private func persistIfNeeded(_ tokens: AccountTokens, account key: AccountKey) {
        guard let runtime = accounts[key], runtime.persistedTokens != tokens else { return }
        accounts[key]?.persistedTokens = tokens
        let (id, stored) = (runtime.id, tokens.stored)
        worker.enqueue({ try $0.saveTokens(stored, accountID: id) }, onError: vaultErrorLogger(key))
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
