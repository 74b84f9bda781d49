import BrokerProtocol
import BrokerStore

// Accounts whose stored configuration cannot be read (see `UnreadableAccount`).
extension TokenBroker {
    /// Lists `account` in error instead of restoring it, and says which account in the log.
    func restoreUnreadable(_ account: Account) {
        guard case .failure(let problem) = account.configuration else { return }
        let unreadable = UnreadableAccount(account, problem: problem)
        unreadableAccounts[unreadable.key] = unreadable
        logger.with(unreadable.key).error(
            "cannot read the stored account configuration; the account is unusable until it is set up again",
            ["problem": problem.description])
    }

    /// Removes an unreadable account and (by the vault's cascade) its tokens: the way to set it up
    /// again. No logout: its configuration, needed to revoke, is what cannot be read.
    func removeUnreadable(_ key: AccountKey) async throws(WireError) {
        guard unreadableAccounts[key] != nil else { throw unknownAccount(key) }
        try await deleteStoredAccount(key)
        unreadableAccounts[key] = nil
        logger.with(key).info("account removed")
    }

    /// Deletes `key`'s row (and its tokens) from the vault; one already gone is not an error.
    func deleteStoredAccount(_ key: AccountKey) async throws(WireError) {
        let (name, owner) = (key.name, key.owner)
        do {
            try await worker.perform { vault in try vault.removeAccount(named: name, owner: owner) }
        } catch StoreError.unknownAccount {
            // Already gone from the vault: forget it in memory too.
        } catch {
            throw fail(WireError(code: .internal, message: "The account could not be removed: \(error)"))
        }
    }
}
