import BrokerCrypto
import BrokerProtocol
import BrokerStore
import FoundationEssentials

// Changing an account in place (`authctl account apply`).
extension TokenBroker {
    /// Replaces the configuration of `input.name`. A change to the security profile or the client
    /// secret logs the account out (tokens deleted, pending login cancelled, refresh voided): its
    /// tokens were granted to the old configuration. Other changes (git fields) keep the tokens.
    /// Discovery runs again when the issuer, discovery URL or endpoints change; a failure changes nothing.
    /// A change that widens the caller policy of an account that has one needs `confirmation`
    /// (`confirmPolicyChange`); every change is logged with its keys and `caller`.
    public func updateAccount(
        _ input: AccountConfiguration, owner: UInt32, confirmation: String?, caller: ChangeRequester
    ) async throws(WireError) -> AccountUpdateResult {
        guard let existing = accounts[AccountKey(owner: owner, name: input.name)] else {
            throw unknownAccount(AccountKey(owner: owner, name: input.name))
        }
        let completed = try await completeUpdate(input, of: existing.configuration, owner: owner)
        let configuration = try AccountValidation.check(completed).get()
        let key = AccountKey(owner: owner, name: configuration.name)
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        let secret = configuration.clientSecret.map { Secret($0) }
        let shown = configuration.withoutSecret
        let old = runtime.configuration
        let securityRelevant = secret != runtime.clientSecret || shown.securityProfile != old.securityProfile
        guard securityRelevant || shown != old else {
            return AccountUpdateResult(outcome: .unchanged, account: accountStatus(runtime, configuration: true))
        }
        let changed = shown.changedKeys(from: old) + (secret != runtime.clientSecret ? [AccountConfiguration.clientSecretKey] : [])
        let policy = (old: CallerPolicy(old), new: CallerPolicy(shown))
        if CallerPolicy.widens(from: policy.old, to: policy.new) {
            try confirmPolicyChange(key, to: policy.new, changed: changed, confirmation: confirmation, caller: caller)
        }
        let sourceChanged = shown.issuer != old.issuer || shown.discoveryURL != old.discoveryURL
            || shown.endpoints != old.endpoints
        let metadata = sourceChanged ? try await resolveMetadata(for: configuration) : runtime.metadata
        // Discovery awaited: a policy changed meanwhile was not the one this change was judged against.
        guard accounts[key].map({ CallerPolicy($0.configuration) }) == policy.old else {
            throw fail(WireError(
                code: .conflict, message: "'\(key.name)' was changed meanwhile; nothing was changed. Try again."))
        }
        let (id, stored) = (runtime.id, configuration)
        do {
            try await worker.perform { vault in
                try vault.batch {
                    _ = try vault.updateAccount(id: id, with: stored)
                    // In the same transaction: if the delete came later and failed (full disk), a
                    // restart would restore the old grant's refresh token under the new
                    // configuration and send it to the new issuer or client.
                    if securityRelevant { try vault.deleteTokens(accountID: id) }
                }
            }
        } catch StoreError.unknownAccountID {
            throw unknownAccount(key)
        } catch {
            // Nothing changed, in memory or on disk: the old configuration and tokens stay in use.
            logger.with(key).error("cannot store the account: \(error)")
            throw fail(WireError(
                code: .storageFailed,
                message: "The account could not be stored (\(error)); nothing was changed. "
                    + "Free disk space in the state directory and try again."))
        }
        // Removed (or removed and added again) while the vault wrote: that account is not ours to change.
        guard accounts[key]?.id == id else { throw unknownAccount(key) }
        accounts[key]?.configuration = shown
        accounts[key]?.clientSecret = secret
        accounts[key]?.metadata = metadata
        if sourceChanged, let metadata, shown.manualMetadata == nil { adopt(metadata, for: shown) }
        var outcome = AccountUpdateResult.Outcome.updated
        if securityRelevant {
            let machine = accounts[key]!.machine
            if machine.currentTokens != nil || machine.pendingLogin != nil { outcome = .signedOut }
            accounts[key]?.subject = nil
            event(key) { machine, now in machine.configurationChanged(securityRelevant: true, now: now) }
        } else {
            sync(key, now: now())  // a token-neutral change such as --allow-exe applies at once
        }
        logChange(key, changed: changed, caller: caller, tokens: outcome == .signedOut ? "deleted (security-relevant change)" : "kept")
        return AccountUpdateResult(outcome: outcome, account: accountStatus(accounts[key]!, configuration: true))
    }
}
