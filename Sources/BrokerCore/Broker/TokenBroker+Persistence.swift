import BrokerProtocol
import BrokerStore

// Vault writes: tokens committed before the machine hears of them, queued saves, the shutdown save.
extension TokenBroker {
    /// Commits `tokens` and the status that goes with them, in one transaction, before the machine
    /// hears of them. Returns the set to give the machine — `tokens` with its ID token now held in
    /// the vault only (`keepingIDTokenStored`) — or nil when the write failed (logged); the caller
    /// then gives the machine `tokens` and tells it nothing was stored, and its `persistTokens` retries.
    /// `identity`: that of the set's ID token as it was validated, when the caller has it.
    func persist(_ tokens: TokenSet, status: TokenStatus, account key: AccountKey, identity: IDTokenIdentity? = nil)
        async -> TokenSet?
    {
        guard let id = accounts[key]?.id else { return nil }
        do {
            try await worker.perform { vault in try vault.saveTokens(tokens, status: status, accountID: id) }
        } catch {
            logger.with(key).error("cannot store the new tokens, keeping them in memory and retrying: \(error)")
            return nil
        }
        let kept = tokens.keepingIDTokenStored(identity: identity)
        accounts[key]?.persistedTokens = kept
        accounts[key]?.persistedStatus = status
        return kept
    }

    /// `persistTokens`: a no-op for a set already committed; otherwise a save queued in order with
    /// the other vault writes, whose outcome goes back to the machine (`tokensStored` /
    /// `tokensNotStored`, which retries a failed save with backoff).
    func persistIfNeeded(_ tokens: TokenSet, account key: AccountKey) {
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
        // Only the current set is kept with its ID token in the vault (parsing it once is not free).
        let current = runtime.machine.currentTokens == tokens
        let kept = current ? tokens.keepingIDTokenStored() : tokens
        if current { accounts[key]?.persistedTokens = kept }
        if runtime.machine.unsaved != nil { logger.with(key).info("the tokens are saved again") }
        event(key) { machine, now in machine.tokensStored(tokens, keptAs: kept, now: now) }
    }

    /// Shutdown: one last save of every account whose current tokens are not in the vault.
    func saveUnsavedTokens() async {
        for (key, runtime) in accounts {
            guard let tokens = runtime.unsavedTokens else { continue }
            let id = runtime.id
            do {
                try await worker.perform { vault in try vault.saveTokens(tokens, accountID: id) }
                accounts[key]?.persistedTokens = tokens
                logger.with(key).info("unsaved tokens saved at shutdown")
            } catch {
                logger.with(key).error(
                    "the tokens could not be saved before the stop (\(error)): the account will need `authctl login` after the restart"
                )
            }
        }
    }

    func deleteTokens(account key: AccountKey) {
        guard let id = accounts[key]?.id else { return }
        accounts[key]?.persistedTokens = nil
        accounts[key]?.persistedStatus = nil  // the row (status included) goes: rewrite it at the next sync
        worker.enqueue({ try $0.deleteTokens(accountID: id) }, onError: vaultErrorLogger(key))
    }

    func vaultErrorLogger(_ key: AccountKey) -> @Sendable (any Error) -> Void {
        let logger = logger.with(key)
        return { error in logger.error("token store write failed: \(error)") }
    }
}
