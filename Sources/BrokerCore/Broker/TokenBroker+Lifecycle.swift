import BrokerCrypto
import BrokerProtocol
import BrokerStore
import FoundationEssentials

// Start (every account restored from the vault) and shutdown (drain, then stop).
extension TokenBroker {
    /// Restores every account from the vault: tokens, status and schedules come back, and refreshes
    /// that fell due while the daemon was down start now.
    public func start() async {
        let loaded: [(Account, TokenSet?, TokenStatus?, Secret?, CachedDocument?, String?)]
        do {
            loaded = try await worker.perform { vault in
                try vault.batch { try vault.accounts().map { account in
                    // Unreadable configuration: listed in error; its tokens stay stored, unread.
                    guard case .success(let configuration) = account.configuration else {
                        return (account, nil, nil, nil, nil, nil)
                    }
                    var problem: String?
                    var tokens: TokenSet?
                    do { tokens = try vault.loadTokens(accountID: account.id) } catch { problem = "\(error)" }
                    var secret: Secret?
                    do {
                        secret = try vault.clientSecret(for: account)
                    } catch {
                        // Without its secret the account would refresh as a public client, be told
                        // invalid_client and lose its refresh token: keep the tokens stored, unused.
                        (tokens, problem) = (nil, "\(error)")
                    }
                    let metadata = configuration.metadataDocumentURL.flatMap {
                        try? vault.providerMetadata(issuer: configuration.issuer, documentURL: $0)
                    }
                    return (account, tokens, try? vault.status(accountID: account.id), secret, metadata, problem)
                } }
            }
        } catch {
            logger.error("cannot read the accounts from the token store: \(error)")
            return
        }
        // Accounts of one provider share its discovery document: decode each document once.
        var decodedDocuments: [String: ProviderMetadata] = [:]
        for (account, tokens, status, secret, document, problem) in loaded {
            let key = AccountKey(owner: account.ownerUID, name: account.name)
            guard case .success(let configuration) = account.configuration else {
                restoreUnreadable(account)
                continue
            }
            if let problem { logger.with(key).error("cannot restore the tokens: \(problem)") }
            if let json = document?.json, decodedDocuments[json] == nil {
                decodedDocuments[json] = CachedProviderMetadata.storedMetadata(json)
            }
            var runtime = makeRuntime(
                account, configuration: configuration, secret: secret, document: document,
                decoded: document.flatMap { decodedDocuments[$0.json] })
            runtime.subject = status?.subject
            runtime.persistedStatus = status
            runtime.persistedTokens = tokens
            runtime.machine.lastRefreshAt = status?.lastRefreshAt
            if let code = status?.lastErrorCode.flatMap(WireErrorCode.init(rawValue:)) {
                runtime.machine.lastError = WireError(code: code, message: status?.lastErrorMessage ?? "")
            }
            if let problem { runtime.machine.lastError = Self.unreadable(account.name, problem) }
            accounts[key] = runtime
            event(key) { machine, now in machine.restored(tokens, now: now) }
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
        // A login whose code is being exchanged is drained like a refresh: the provider has issued
        // its tokens (and, with rotation, nothing else will do), so they are stored before the exit.
        drained.formUnion(logins.cancelUnlessExchanging())
        await drainRefreshes()
        for (_, task) in tasks { task.cancel() }
        tasks = [:]
        drained = []
        let stopping = WireError(code: .providerUnavailable, message: "authbroker is shutting down; try again shortly.")
        for id in answers.waitingIDs { answers.deliver(.failure(stopping), to: id) }
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

    /// `decoded`: `document` already decoded (start-up decodes each provider's document once).
    func makeRuntime(
        _ account: Account, configuration: AccountConfiguration, secret: Secret?,
        document: CachedDocument?, decoded: ProviderMetadata? = nil
    ) -> AccountRuntime {
        var metadata: CachedProviderMetadata?
        if let manual = configuration.manualMetadata {
            metadata = CachedProviderMetadata(metadata: manual, documentURL: nil, fetchedAt: Date(timeIntervalSince1970: now()))
        } else if let document, let documentURL = configuration.metadataDocumentURL,
            let decoded = decoded ?? CachedProviderMetadata.storedMetadata(document.json),
            decoded.issuer == configuration.issuer
        {
            metadata = CachedProviderMetadata(
                metadata: decoded, documentURL: documentURL, fetchedAt: Date(timeIntervalSince1970: document.fetchedAt))
        }
        let seed = (try? Random.bytes(8)).map { $0.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } } ?? UInt64(account.id)
        let machine = AccountStateMachine(
            account: account.name, policy: options.refreshPolicy, backoff: options.refreshBackoff,
            jitter: RefreshJitter(seed: seed))
        return AccountRuntime(
            id: account.id, owner: account.ownerUID, configuration: configuration, clientSecret: secret, metadata: metadata, machine: machine)
    }
}
