import BrokerCrypto
import BrokerProtocol
import BrokerStore
import FoundationEssentials

// Start (every account restored from the vault) and shutdown (drain, then stop).
extension TokenBroker {
    /// Restores every account from the vault: tokens, status and schedules come back, and refreshes
    /// that fell due while the daemon was down start now.
    public func start() async {
        let stored: [StoredAccount]
        do {
            stored = try await worker.perform { vault in
                var sources = ProviderSources()
                defer { vault.releaseCache() }
                return try vault.batch { try vault.sealedAccounts { StoredAccount.read($0, from: vault, sources: &sources) } }
            }
        } catch {
            logger.error("cannot read the accounts from the token store: \(error)")
            return
        }
        // One growth, not ten: each doubling rehashes every runtime so far (a few % of a 1,000-account start).
        accounts.reserveCapacity(accounts.count + stored.count)
        for item in stored {
            let account = item.account
            let key = AccountKey(owner: account.ownerUID, name: account.name)
            guard case .success(let configuration) = account.configuration else {
                restoreUnreadable(account)
                continue
            }
            if let problem = item.problem { logger.with(key).error("cannot restore the tokens: \(problem)") }
            var runtime = makeRuntime(account, configuration: configuration, secret: item.secret, cached: nil)
            // The box of its provider source, shared with the source's other accounts.
            if !configuration.hasManualEndpoints { runtime.metadataStorage = item.metadata }
            runtime.subject = item.status?.subject
            runtime.persistedStatus = item.status
            runtime.persistedTokens = item.tokens
            runtime.machine.lastRefreshAt = item.status?.lastRefreshAt
            if let code = item.status?.lastErrorCode.flatMap(WireErrorCode.init(rawValue:)) {
                runtime.machine.lastError = WireError(code: code, message: item.status?.lastErrorMessage ?? "")
            }
            if let problem = item.problem { runtime.machine.lastError = Self.unreadable(account.name, problem) }
            // `consume`: the dictionary's copy is then the box's only reference, so the event below
            // changes the machine in place instead of copying the whole runtime once per account.
            accounts[key] = consume runtime
            event(key) { machine, now in machine.restored(item.tokens, now: now) }
        }
        logger.info("broker started", ["accounts": String(accountCount)])
    }

    /// The status error of an account whose sealed values do not open (wrong key, tampered database).
    static func unreadable(_ name: String, _ problem: String) -> WireError {
        WireError(
            code: .internal,
            message: "The stored tokens of '\(name)' cannot be used (\(problem)); they are kept unused. "
                + "Start the daemon with the key they were sealed with, or set the account up again "
                + "(authctl account remove \(name), then add it and log in)")
    }

    /// A graceful stop. Timers and logins end and nothing new starts; refreshes in flight are
    /// drained — awaited for up to `shutdownDrainTimeout`, their answers committed — because with
    /// rotation the provider has already retired the stored refresh token; then the other background
    /// work is cancelled, parked callers are answered, tokens whose save failed get one last try,
    /// queued vault writes finish and the vault closes.
    public func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        scheduler?.cancel()
        scheduler = nil
        wakeUps = WakeUpSchedule()
        parkedWatchdog?.cancel()  // every parked caller is answered below
        parkedWatchdog = nil
        // A login whose code is being exchanged is drained like a refresh: the provider has issued
        // its tokens (and, with rotation, nothing else will do), so they are stored before the exit.
        drained.formUnion(logins.cancelUnlessExchanging())
        await drainRefreshes()
        for (_, task) in tasks { task.cancel() }
        tasks = [:]
        drained = []
        let stopping = WireError(code: .providerUnavailable, message: "authbroker is shutting down; try again shortly.")
        for id in answers.waitingIDs { deliver(.failure(stopping), to: id) }
        for id in loginWaits.waitingIDs { loginWaits.deliver(LoginStatus(loginID: "", account: "", outcome: .pending), to: id) }
        await saveUnsavedTokens()
        cache.removeAll()
        await worker.stop()
        logger.info("broker stopped")
    }

    /// Waits until every drained task has finished, or `shutdownDrainTimeout` has passed. Not a
    /// task group: it would wait for its children, and awaiting a `Task`'s value ignores
    /// cancellation (an HTTP call runs to its own 30 s timeout), so the bound would not hold.
    private func drainRefreshes() async {
        let pending = drained.compactMap { tasks[$0] }
        guard !pending.isEmpty else { return }
        logger.info("waiting for \(pending.count) token request(s) in flight before stopping")
        let timeout = Duration.milliseconds(Int64(options.shutdownDrainTimeout * 1000))
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let first = FirstAnswer(continuation)
            Task {
                for task in pending { await task.value }
                first.offer(true)
            }
            Task {
                try? await Task.sleep(for: timeout)
                first.offer(false)
            }
        }
        if !finished {
            logger.warning(
                "gave up after \(timeout) waiting for the token endpoint; an answer that comes later is lost")
        }
    }

    /// `cached`: the account's discovery metadata from the vault's cache (`ProviderSources`);
    /// metadata of manual endpoints is built here.
    func makeRuntime(
        _ account: Account, configuration: AccountConfiguration, secret: Secret?, cached: CachedProviderMetadata?
    ) -> AccountRuntime {
        let metadata =
            configuration.manualMetadata.map {
                CachedProviderMetadata(metadata: $0, documentURL: nil, fetchedAt: Date(timeIntervalSince1970: now()))
            } ?? cached
        let seed = (try? Random.bytes(8)).map { $0.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } } ?? UInt64(account.id)
        let machine = AccountStateMachine(account: account.name, settings: refreshSettings, jitter: RefreshJitter(seed: seed))
        return AccountRuntime(
            id: account.id, owner: account.ownerUID, configuration: configuration, clientSecret: secret, metadata: metadata,
            machine: machine)
    }
}

/// What start-up reads from the vault for one account (on the vault's thread).
struct StoredAccount: Sendable {
    var account: Account
    var tokens: TokenSet?
    var status: TokenStatus?
    var secret: Secret?
    var metadata = OutOfLine<CachedProviderMetadata?>(wrappedValue: nil)
    /// Why the stored tokens cannot be used (they stay stored, unread).
    var problem: String?

    static func read(_ sealed: Vault.SealedAccount, from vault: Vault, sources: inout ProviderSources) -> StoredAccount {
        var stored = StoredAccount(account: sealed.account)
        // Unreadable configuration: listed in error; its tokens stay stored, unread.
        guard case .success(var configuration) = sealed.account.configuration else { return stored }
        sources.share(&configuration)
        stored.account.configuration = .success(configuration)
        do {
            stored.tokens = try vault.tokens(of: sealed)
            if stored.tokens != nil { sources.share(&stored.tokens!) }
        } catch {
            stored.problem = "\(error)"
        }
        do {
            stored.secret = try vault.clientSecret(of: sealed)
        } catch {
            // Without its secret the account would refresh as a public client, be told
            // invalid_client and lose its refresh token: keep the tokens stored, unused.
            (stored.tokens, stored.problem) = (nil, "\(error)")
        }
        stored.metadata = sources.sharedMetadata(for: configuration) { issuer, documentURL in
            try? vault.providerMetadata(issuer: issuer, documentURL: documentURL)
        }
        stored.status = sealed.status
        return stored
    }

    private init(account: Account) { self.account = account }
}
