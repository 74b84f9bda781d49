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
    /// `keepClientSecret`: a body without `client_secret` keeps the sealed one (`authctl account
    /// update` cannot send it back: it is never returned). `dryRun`: checks the body (and, for a new
    /// issuer, discovery URL or endpoints, discovery) and answers the outcome the change would
    /// have, changing nothing (no code sent).
    public func updateAccount(
        _ input: AccountConfiguration, owner: UInt32, confirmation: String?, caller: ChangeRequester,
        keepClientSecret: Bool = false, dryRun: Bool = false
    ) async throws(WireError) -> AccountUpdateResult {
        guard let existing = accounts[AccountKey(owner: owner, name: input.name)] else {
            throw unknownAccount(AccountKey(owner: owner, name: input.name))
        }
        let completed = try await completeUpdate(input, of: existing.configuration, owner: owner, dryRun: dryRun)
        var configuration = try AccountValidation.check(completed).get()
        let key = AccountKey(owner: owner, name: configuration.name)
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        if keepClientSecret, configuration.clientSecret == nil, let kept = runtime.clientSecret {
            // The sealed secret goes only where it went before: kept for a new issuer, discovery
            // URL, endpoints or client id, a same-uid program could have it sent to its own server.
            let old = runtime.configuration
            guard configuration.issuer == old.issuer, configuration.discoveryURL == old.discoveryURL,
                configuration.withoutSecret.endpoints == old.endpoints, configuration.clientID == old.clientID
            else {
                throw fail(
                    WireError(
                        code: .invalidRequest,
                        message: "A new issuer, discovery URL, endpoint or client id for '\(key.name)' needs its client "
                            + "secret again (--client-secret-file FILE, or --no-client-secret for a public client): "
                            + "the sealed one is never sent to another provider."))
            }
            configuration.clientSecret = kept.revealString()
        }
        let secret = configuration.clientSecret.map { Secret($0) }
        let shown = configuration.withoutSecret
        let old = runtime.configuration
        let securityRelevant = secret != runtime.clientSecret || shown.securityProfile != old.securityProfile
        guard securityRelevant || shown != old else {
            return AccountUpdateResult(outcome: .unchanged, account: accountStatus(runtime, configuration: true))
        }
        if dryRun {
            let signsOut = securityRelevant && (runtime.machine.currentTokens != nil || runtime.machine.pendingLogin != nil)
            if shown.issuer != old.issuer || shown.discoveryURL != old.discoveryURL || shown.endpoints != old.endpoints {
                _ = try await resolveMetadata(for: configuration)  // as the change would: a failure is the answer
            }
            guard let runtime = accounts[key] else { throw unknownAccount(key) }  // removed while discovery ran
            return AccountUpdateResult(
                outcome: signsOut ? .signedOut : .updated, account: accountStatus(runtime, configuration: true))
        }
        let changed =
            shown.changedKeys(from: old) + (secret != runtime.clientSecret ? [AccountConfiguration.clientSecretKey] : [])
        let policy = (old: CallerPolicy(old), new: CallerPolicy(shown))
        if CallerPolicy.widens(from: policy.old, to: policy.new) {
            try confirmPolicyChange(key, to: policy.new, changed: changed, confirmation: confirmation, caller: caller)
        }
        let sourceChanged =
            shown.issuer != old.issuer || shown.discoveryURL != old.discoveryURL
            || shown.endpoints != old.endpoints
        let metadata = sourceChanged ? try await resolveMetadata(for: configuration) : runtime.metadata
        // Discovery awaited: a policy changed meanwhile was not the one this change was judged against.
        guard accounts[key].map({ CallerPolicy($0.configuration) }) == policy.old else {
            throw fail(
                WireError(
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
            throw fail(
                WireError(
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
            stepUps.clear(key)  // asked for by the old configuration's resource, not this one's
            event(key) { machine, now in machine.configurationChanged(securityRelevant: true, now: now) }
        } else {
            sync(key, now: now())  // a token-neutral change such as --allow-exe applies at once
        }
        logChange(
            key, changed: changed, caller: caller, tokens: outcome == .signedOut ? "deleted (security-relevant change)" : "kept")
        return AccountUpdateResult(outcome: outcome, account: accountStatus(accounts[key]!, configuration: true))
    }
}
