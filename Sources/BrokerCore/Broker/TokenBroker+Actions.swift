import BrokerProtocol
import BrokerStore
import FoundationEssentials

// Feeding events to the state machines and performing the actions they return, in order.
extension TokenBroker {
    typealias Action = AccountStateMachine.Action

    /// Feeds one event to `name`'s machine (at `time`, default now), performs the actions, then
    /// refreshes the fast-path snapshot, the metrics and the stored status. False: no such account.
    @discardableResult
    func event(
        _ name: String, at time: Double? = nil, _ body: (inout AccountStateMachine, Double) -> [Action]
    ) -> Bool {
        guard accounts[name] != nil else { return false }
        let time = time ?? now()
        let actions = body(&accounts[name]!.machine, time)
        perform(actions, account: name)
        sync(name, now: time)
        return true
    }

    /// Performs `actions` in order. Nothing here awaits: slow work (network, waits) runs in tracked
    /// tasks that report back with a new event, and vault writes are queued on the vault thread in
    /// this order, so the sequence the machine asked for is the sequence that reaches the disk.
    func perform(_ actions: [Action], account name: String) {
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
                background(drain: true) { broker in await broker.refresh(name, generation: generation, attempt: attempt) }
            case .scheduleWakeUp(let at):
                arm(name, at: at)
            case .cancelWakeUp:
                wakeUps[name] = nil
            case .persistTokens(let tokens):
                persistIfNeeded(tokens, account: name)
            case .deleteTokens:
                deleteTokens(account: name)
            case .revoke(let tokens):
                background { broker in _ = await broker.revoke(tokens, account: name) }
            case .cancelLogin(let loginID, let reason):
                cancelLogin(loginID, reason: reason)
            case .notifyUser(let note):
                notifier.notify(note)
            }
        }
    }

    /// Brings the fast-path snapshot, the account-state gauge and the stored status up to date.
    func sync(_ name: String, now time: Double) {
        guard let runtime = accounts[name] else {
            cache.set(nil, account: name)
            counters.state(nil, account: name)
            return
        }
        let machine = runtime.machine
        let policy = options.refreshPolicy
        var entry: TokenCache.Entry?
        if let tokens = machine.currentTokens, policy.isValid(tokens, at: time) {
            let expiry = policy.effectiveExpiry(of: tokens)
            let serveUntil = expiry.map { $0 - policy.margin(lifetime: policy.lifetime(of: tokens) ?? 0) } ?? .infinity
            entry = TokenCache.Entry(grant: tokens.grant(expiry: expiry), serveUntil: serveUntil)
        }
        cache.set(entry, account: name)
        counters.state(machine.wireState(now: time), account: name)
        let status = TokenStatus(
            lastRefreshAt: machine.lastRefreshAt, lastErrorCode: machine.lastError?.code.rawValue,
            lastErrorMessage: machine.lastError?.message, subject: runtime.subject)
        guard status != runtime.persistedStatus else { return }
        accounts[name]?.persistedStatus = status
        let id = runtime.id
        let logError = vaultErrorLogger(name)
        worker.enqueueReporting({ try $0.updateStatus(status, accountID: id) }) { error in
            guard let error else { return }
            logError(error)
            Task { await self.statusWriteFailed(status, account: name, id: id) }
        }
    }

    /// A status that did not reach the vault is written again at the next change of the account.
    private func statusWriteFailed(_ status: TokenStatus, account name: String, id: Int64) {
        guard accounts[name]?.id == id, accounts[name]?.persistedStatus == status else { return }
        accounts[name]?.persistedStatus = nil
    }

    // MARK: Persistence

    /// Commits `tokens` and the status that goes with them, in one transaction, before the machine
    /// hears of them. Returns false when the write failed (logged); the caller then tells the machine
    /// nothing was stored, and its `persistTokens` retries.
    func persist(_ tokens: AccountTokens, status: TokenStatus, account name: String) async -> Bool {
        guard let id = accounts[name]?.id else { return false }
        let stored = tokens.stored
        do {
            try await worker.perform { vault in
                try vault.batch {
                    try vault.saveTokens(stored, accountID: id)
                    try vault.updateStatus(status, accountID: id)
                }
            }
        } catch {
            logger.error("cannot store the new tokens, keeping them in memory and retrying: \(error)", ["account": name])
            return false
        }
        accounts[name]?.persistedTokens = tokens
        accounts[name]?.persistedStatus = status
        return true
    }

    /// `persistTokens`: a no-op for a set already committed; otherwise a save queued in order with
    /// the other vault writes, whose outcome goes back to the machine (`tokensStored` /
    /// `tokensNotStored`, which retries a failed save with backoff).
    private func persistIfNeeded(_ tokens: AccountTokens, account name: String) {
        guard let runtime = accounts[name], runtime.persistedTokens != tokens else { return }
        let (id, stored) = (runtime.id, tokens.stored)
        worker.enqueueReporting({ try $0.saveTokens(stored, accountID: id) }) { error in
            Task { await self.saveFinished(tokens, account: name, id: id, error: error) }
        }
    }

    /// The outcome of a queued token save, for the account it was made for (not a newer one of the name).
    private func saveFinished(_ tokens: AccountTokens, account name: String, id: Int64, error: (any Error)?) {
        guard let runtime = accounts[name], runtime.id == id else { return }
        if let error {
            logger.error("cannot store the tokens, keeping them in memory and retrying: \(error)", ["account": name])
            event(name) { machine, now in machine.tokensNotStored(tokens, reason: "\(error)", now: now) }
            return
        }
        if runtime.machine.currentTokens == tokens { accounts[name]?.persistedTokens = tokens }
        if runtime.machine.unsaved != nil { logger.info("the tokens are saved again", ["account": name]) }
        event(name) { machine, now in machine.tokensStored(tokens, now: now) }
    }

    /// Shutdown: one last save of every account whose current tokens are not in the vault.
    func saveUnsavedTokens() async {
        for (name, runtime) in accounts {
            guard let tokens = runtime.machine.currentTokens, runtime.persistedTokens != tokens else { continue }
            let (id, stored) = (runtime.id, tokens.stored)
            do {
                try await worker.perform { vault in try vault.saveTokens(stored, accountID: id) }
                accounts[name]?.persistedTokens = tokens
                logger.info("unsaved tokens saved at shutdown", ["account": name])
            } catch {
                logger.error(
                    "the tokens could not be saved before the stop (\(error)): the account will need `authctl login` after the restart",
                    ["account": name])
            }
        }
    }

    private func deleteTokens(account name: String) {
        guard let id = accounts[name]?.id else { return }
        accounts[name]?.persistedTokens = nil
        accounts[name]?.persistedStatus = nil  // the row (status included) goes: rewrite it at the next sync
        worker.enqueue({ try $0.deleteTokens(accountID: id) }, onError: vaultErrorLogger(name))
    }

    func vaultErrorLogger(_ name: String) -> @Sendable (any Error) -> Void {
        let logger = logger
        return { error in logger.error("token store write failed: \(error)", ["account": name]) }
    }

    // MARK: Timers

    /// (Re)arms `name`'s single wake-up for the wall-clock time `at`.
    private func arm(_ name: String, at: Double) {
        guard !isShutDown else { return }
        wakeUps[name] = at
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
        for (name, at) in wakeUps where at <= time {
            wakeUps[name] = nil
            event(name, at: time) { machine, now in machine.timerFired(now: now) }
        }
        reschedule()
    }
}
