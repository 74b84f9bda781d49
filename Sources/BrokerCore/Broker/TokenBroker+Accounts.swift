import BrokerCrypto
import BrokerProtocol
import BrokerStore
import FoundationEssentials
import WireFormats

// Accounts: listing, adding (with discovery), removing. Each caller sees only the accounts it owns.
extension TokenBroker {
    public func status(owner: UInt32) async -> AccountList {
        owned(by: owner, configuration: false)
    }

    public func accounts(owner: UInt32) async -> AccountList {
        owned(by: owner, configuration: true)
    }

    /// `owner`'s accounts by name, unreadable ones included.
    private func owned(by owner: UInt32, configuration: Bool) -> AccountList {
        let usable = accounts.values.filter { $0.owner == owner }.map { accountStatus($0, configuration: configuration) }
        let unreadable = unreadableAccounts.values.filter { $0.key.owner == owner }.map(\.status)
        return AccountList(accounts: (usable + unreadable).sorted { $0.name < $1.name })
    }

    /// Every owner's accounts (the daemon's status line; never answered to a client).
    public var accountCount: Int { accounts.count + unreadableAccounts.count }

    public func account(_ key: AccountKey) async throws(WireError) -> AccountStatus {
        if let unreadable = unreadableAccounts[key] { return unreadable.status }
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        return accountStatus(runtime, configuration: true)
    }

    func accountStatus(_ runtime: AccountRuntime, configuration: Bool) -> AccountStatus {
        let machine = runtime.machine
        let expiry = machine.currentTokens.flatMap { options.refreshPolicy.effectiveExpiry(of: $0) }
        var status = AccountStatus(
            name: runtime.name, state: machine.wireState(now: now()),
            expiresAt: expiry.map { RFC3339.format(unixSeconds: $0) },
            lastRefresh: machine.lastRefreshAt.map { RFC3339.format(unixSeconds: $0) }, lastError: machine.lastError,
            subject: runtime.subject, configuration: configuration ? runtime.configuration : nil)
        status.scope = machine.currentTokens?.scope
        let stepUp = stepUps.scopes(AccountKey(owner: runtime.owner, name: runtime.name))
        if !stepUp.isEmpty { status.stepUpScope = stepUp.joined(separator: " ") }
        return status
    }

    /// Validates the configuration, runs discovery (unless endpoints are given manually), stores the
    /// account (client secret sealed) as `owner`'s, and its metadata.
    public func addAccount(_ configuration: AccountConfiguration, owner: UInt32, dryRun: Bool = false) async throws(WireError)
        -> AccountStatus
    {
        let key = AccountKey(owner: owner, name: configuration.name)
        guard accounts[key] == nil else { throw conflict(key.name) }
        // A resource's URL alone: discover its server and obtain a client before the usual checks.
        let completed = try await completeProtectedResource(configuration, owner: owner, dryRun: dryRun)
        do throws(WireError) {
            return try await addCompleted(completed, key: key, dryRun: dryRun)
        } catch {
            // A client registered for this account only is not left behind at the server.
            if configuration.clientID.isEmpty, !dryRun { await releaseRegistration(of: completed, owner: owner) }
            throw error
        }
    }

    private func addCompleted(_ completed: AccountConfiguration, key: AccountKey, dryRun: Bool) async throws(WireError)
        -> AccountStatus
    {
        let owner = key.owner
        let configuration = try AccountValidation.check(completed).get()
        guard accounts[key] == nil else { throw conflict(key.name) }
        let metadata = try await resolveMetadata(for: configuration)
        // `dry_run=1` (`authctl account apply`'s check before anything changes, and --dry-run):
        // the body is valid, the name free and discovery works; nothing is kept.
        if dryRun { return AccountStatus(name: key.name, state: .loggedOut, configuration: configuration.withoutSecret) }
        let stored: Account
        do {
            let time = now()
            stored = try await worker.perform { vault in try vault.addAccount(configuration, owner: owner, now: time) }
        } catch StoreError.duplicateAccount {
            throw conflict(key.name)
        } catch {
            logger.with(key).error("cannot store the account: \(error)")
            throw fail(WireError(code: .internal, message: "The account could not be stored: \(error)"))
        }
        var runtime = makeRuntime(
            stored, configuration: configuration.withoutSecret, secret: configuration.clientSecret.map { Secret($0) },
            cached: nil)
        runtime.metadata = metadata
        accounts[key] = runtime
        if configuration.manualMetadata == nil { adopt(metadata, for: configuration) }
        event(key) { machine, now in machine.restored(nil, now: now) }
        logger.with(key).info("account added", ["issuer": configuration.issuer])
        var status = accountStatus(accounts[key]!, configuration: true)
        status.dpopSigningAlgValuesSupported = metadata.metadata.dpopSigningAlgValuesSupported
        return status
    }

    /// Logs out (best effort: revocation failures do not stop the removal), then forgets the account.
    /// `caller`: who asked, for the log line (with the caller policy the account had, if any).
    public func removeAccount(_ key: AccountKey, caller: ChangeRequester = .unknown) async throws(WireError) {
        if unreadableAccounts[key] != nil { return try await removeUnreadable(key) }
        guard accounts[key] != nil else { throw unknownAccount(key) }
        _ = try? await logout(account: key)
        guard let id = accounts[key]?.id else { return }  // removed meanwhile by another call
        try await deleteStoredAccount(key)
        guard let removed = accounts[key], removed.id == id else { return }
        counters.state(nil, replacing: removed.reportedState, owner: key.owner)
        accounts[key] = nil
        approvals.forget(key)
        stepUps.clear(key)
        narrowedBudget.remove(account: key)
        policyConfirmations.forget(key)
        wakeUps.cancel(key)
        sync(key, now: now())
        // Removing drops the caller policy too (and the tokens): say which, and who asked.
        let configuration = removed.configuration
        await releaseRegistration(of: configuration, owner: key.owner)
        let policy = [
            ("allow_exe", !(configuration.allowExe ?? []).isEmpty), ("confirm_callers", configuration.confirmCallers == true),
        ]
        .filter(\.1).map(\.0).joined(separator: ",")
        logger.with(key).with(policy.isEmpty ? [:] : ["policy": policy])
            .info("account removed", ["pid": caller.pid, "exe": caller.executable])
    }

    private func conflict(_ name: String) -> WireError {
        fail(
            WireError(
                code: .conflict,
                message: "An account named '\(name)' already exists. Remove it first: authctl account remove \(name)"))
    }
}
