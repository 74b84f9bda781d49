import BrokerProtocol
import BrokerStore
import FoundationEssentials
import WireFormats

// Feeding events to the state machines and performing the actions they return, in order; the
// fast-path snapshot and stored status that follow each event.
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
                counters.tokensServed(ids.count)  // first: a served caller may read the metrics at once
                for id in ids { deliver(.success(grant), to: id.rawValue) }
            case .fail(let error, let ids):
                // Counted first, as served tokens are; only the answers that will be taken (the first wins).
                for id in ids where !answers.hasAnswer(id.rawValue) {
                    counters.error(error.code)
                    deliver(.failure(error), to: id.rawValue)
                }
            case .waitForRefresh:
                break  // the caller parks itself when no answer was delivered
            case .startRefresh(_, let generation, let attempt):
                background(drain: true) { broker in await broker.refresh(key, generation: generation, attempt: attempt) }
            case .scheduleWakeUp(let at):
                arm(key, at: at)
            case .cancelWakeUp:
                wakeUps.cancel(key)
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

    /// Brings the fast-path snapshot (tokens and caller policy), the account-state gauge and the stored status up to date.
    func sync(_ key: AccountKey, now time: Double) {
        callerPolicies.set(accounts[key].flatMap { CallerPolicy($0.configuration) }, account: key)
        guard let runtime = accounts[key] else {
            cache.set(nil, account: key)
            forgetNarrowed(key)
            return
        }
        let machine = runtime.machine
        if machine.currentTokens == nil { forgetNarrowed(key) }
        let policy = options.refreshPolicy
        var entry: TokenCache.Entry?
        if let tokens = machine.currentTokens, policy.isValid(tokens, at: time) {
            let expiry = policy.effectiveExpiry(of: tokens)
            let serveUntil = expiry.map { $0 - policy.margin(lifetime: policy.lifetime(of: tokens) ?? 0) } ?? .infinity
            entry = TokenCache.Entry(
                tokens: tokens, expiresAt: expiry.map { RFC3339.format(unixSeconds: $0) }, serveUntil: serveUntil,
                proofRefusals: tokens.dpopKey == nil
                    ? AuthorizationServerTargets(nil) : runtime.metadata?.proofTargets ?? AuthorizationServerTargets(nil))
        }
        cache.set(entry, account: key)
        let state = machine.wireState(now: time)
        if state != runtime.reportedState {
            counters.state(state, replacing: runtime.reportedState, owner: key.owner)
            accounts[key]?.reportedState = state
        }
        let status = runtime.status
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
}
