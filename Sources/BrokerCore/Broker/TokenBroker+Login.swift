import BrokerProtocol
import BrokerStore

/// One login the broker started, and what became of it (kept a while after it ends, for `loginStatus`).
struct LoginRecord: Sendable {
    /// Whose login it is: only its owner may see its status (and so its authorization URL).
    let account: AccountKey
    let login: BrokerLogin?
    let started: LoginStarted
    /// The background task awaiting the flow's outcome (drained at shutdown while the code is
    /// being exchanged).
    var task: UInt64?
    var outcome: LoginStatus.Outcome = .pending
    var error: WireError?
    var subject: String?
    /// Parked `loginStatus` long-polls.
    var waiters: [UInt64] = []
    var endedAt: Double?

    func status(id: String) -> LoginStatus {
        LoginStatus(loginID: id, account: account.name, outcome: outcome, error: error, subject: subject)
    }
}

// Logins: start (or join), outcome, long-poll.
extension TokenBroker {
    /// Finished logins are kept this long for `loginStatus`.
    static let loginRecordLifetime: Double = 600

    /// Starts (or joins) `key`'s login. Keyed by owner: another user's `startLogin` for an account of
    /// the same name reaches that user's own account, never this pending login or its URL.
    public func startLogin(account key: AccountKey, request: LoginRequest) async throws(WireError) -> LoginStarted {
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        // Only one pending login per account: a second start joins the first.
        if let pending = runtime.machine.pendingLogin, let record = logins[pending.loginID], record.outcome == .pending {
            return record.started
        }
        if let starting = loginStarts[key] { return try await starting.value.get() }
        let task = Task { await self.beginLogin(key, request: request) }
        loginStarts[key] = task
        let result = await task.value
        loginStarts[key] = nil
        return try result.get()
    }

    private func beginLogin(_ key: AccountKey, request: LoginRequest) async -> Result<LoginStarted, WireError> {
        let name = key.name
        let timeout = request.timeoutSeconds.map(Double.init) ?? options.defaultLoginTimeout
        guard timeout >= 1, timeout <= options.maximumLoginTimeout else {
            return .failure(fail(WireError(
                code: .invalidRequest,
                message: "The login timeout must be between 1 and \(Int(options.maximumLoginTimeout)) seconds.")))
        }
        let login: BrokerLogin
        do throws(OIDCError) {
            let metadata = try await metadata(for: key)
            guard let runtime = accounts[key] else { return .failure(unknownAccount(key)) }
            if request.device == true {
                login = try await BrokerLogin.device(client: oidc, metadata: metadata, configuration: runtime.client)
            } else {
                guard let factory = options.loginFlowFactory else {
                    return .failure(fail(WireError(
                        code: .invalidRequest,
                        message: "This daemon cannot run browser logins; use: authctl login \(name) --device")))
                }
                let configuration = runtime.configuration
                let context = LoginContext(
                    account: name, client: oidc, metadata: metadata, configuration: runtime.client,
                    redirect: LoopbackRedirect(
                        host: configuration.redirectHost.flatMap { AccountValidation.redirectHosts[$0] } ?? .ipv4,
                        port: configuration.redirectPort ?? 0, path: configuration.redirectPath ?? RedirectURI.defaultPath),
                    timeout: .milliseconds(Int64(timeout * 1000)))
                login = try await factory(context)
            }
        } catch {
            let code: WireErrorCode = if case .transient = error.disposition { .providerUnavailable } else { .invalidRequest }
            return .failure(fail(WireError(code: code, message: "Cannot start a login for '\(name)': \(error.description)")))
        }
        let flow = login.flow
        guard accounts[key] != nil, !isShutDown else {
            flow.cancel()
            return .failure(unknownAccount(key))
        }
        // The login's own deadline, or the requested timeout when that is sooner (device codes).
        let deadline = min(flow.expiresAt.timeIntervalSince1970, now() + timeout)
        let started = LoginStarted(
            loginID: flow.loginID, authorizationURL: login.authorizationURL,
            expiresAt: RFC3339.format(unixSeconds: deadline), userCode: login.userCode,
            verificationURI: login.verificationURI)
        pruneLogins()
        logins[flow.loginID] = LoginRecord(account: key, login: login, started: started)
        let pending = AccountStateMachine.PendingLogin(
            loginID: flow.loginID, authorizationURL: login.authorizationURL, deadline: deadline)
        event(key) { machine, now in machine.loginStarted(pending, now: now) }
        logger.with(key).info("login started", ["device": request.device == true ? "yes" : "no"])
        logins[flow.loginID]?.task = background { broker in await broker.awaitLogin(flow, account: key) }
        return .success(started)
    }

    /// Waits for the flow's outcome, commits the tokens, then tells the machine.
    private func awaitLogin(_ flow: any LoginFlow, account key: AccountKey) async {
        let result = await flow.result()
        let loginID = flow.loginID
        guard logins[loginID]?.outcome == .pending else { return }  // cancelled or timed out meanwhile
        switch result {
        case .success(let success):
            let tokens = success.tokens
            var subject = success.subject
            if subject == nil { subject = await userInfoSubject(tokens, account: key) }
            guard let runtime = accounts[key], runtime.machine.pendingLogin?.loginID == loginID else {
                background { broker in _ = await broker.revoke(tokens, account: key) }
                return
            }
            let time = now()
            let status = TokenStatus(lastRefreshAt: runtime.machine.lastRefreshAt, subject: subject)
            let stored = await persist(tokens, status: status, account: key)
            accounts[key]?.subject = subject
            event(key, at: time) { machine, now in
                let actions = machine.loginSucceeded(loginID: loginID, tokens: tokens, now: now)
                return stored ? actions + machine.tokensStored(tokens, now: now) : actions
            }
            logger.with(key).info("login succeeded", ["subject": subject ?? "unknown"])
            endLogin(loginID, outcome: .succeeded, error: nil, subject: subject)
        case .failure(let error) where error == .loginExpired:
            event(key) { machine, now in machine.loginTimedOut(loginID: loginID, now: now) }
            endLogin(loginID, outcome: .timedOut, error: accounts[key]?.machine.lastError, subject: nil)
        case .failure(let error):
            logger.with(key).warning("login failed: \(error)")
            event(key) { machine, now in machine.loginFailed(loginID: loginID, reason: error.description, now: now) }
            let wire = WireError(code: .loginRequired, message: "The login for '\(key.name)' failed: \(error.description)")
            endLogin(loginID, outcome: .failed, error: wire, subject: nil)
        }
    }

    /// The subject from userinfo when the login gave no ID token (best effort, display only).
    private func userInfoSubject(_ tokens: TokenSet, account key: AccountKey) async -> String? {
        guard let metadata = try? await metadata(for: key), metadata.userinfoEndpoint != nil else { return nil }
        return try? await oidc.userInfo(metadata: metadata, tokens: tokens).subject
    }

    /// `cancelLogin`: a timeout, a superseding login or a logout ends the login without tokens.
    func cancelLogin(_ loginID: String, reason: WireError) {
        guard let record = logins[loginID], record.outcome == .pending else { return }
        let outcome: LoginStatus.Outcome = reason.code == .providerUnavailable ? .timedOut : .failed
        endLogin(loginID, outcome: outcome, error: reason, subject: nil)
        record.login?.flow.cancel()
    }

    private func endLogin(_ loginID: String, outcome: LoginStatus.Outcome, error: WireError?, subject: String?) {
        guard var record = logins[loginID], record.outcome == .pending else { return }
        record.outcome = outcome
        record.error = error
        record.subject = subject
        record.endedAt = now()
        let waiters = record.waiters
        record.waiters = []
        logins[loginID] = record
        let counted: BrokerMetrics.LoginOutcome =
            switch outcome {
            case .succeeded: .succeeded
            case .timedOut: .timedOut
            case .failed, .pending: error?.code == .conflict ? .cancelled : .failed
            }
        counters.login(counted)
        for id in waiters { loginWaits.deliver(record.status(id: loginID), to: id) }
    }

    /// Another owner's login is answered exactly like a login that does not exist.
    public func loginStatus(id: String, owner: UInt32, wait: Double) async throws(WireError) -> LoginStatus {
        guard let record = logins[id], record.account.owner == owner else {
            throw fail(WireError(
                code: .unknownAccount, message: "No login with id '\(id)' (it may have ended long ago). Start one with: authctl login NAME"))
        }
        let wait = min(max(wait.isFinite ? wait : 0, 0), options.maximumLoginWait)
        guard record.outcome == .pending, wait > 0 else { return record.status(id: id) }
        let waiter = number()
        logins[id]?.waiters.append(waiter)
        let deadline = now() + wait
        let timeout = Task {
            do { try await self.sleep(until: deadline) } catch { return }
            self.stopWaiting(waiter, login: id)
        }
        let status = await withCheckedContinuation { continuation in loginWaits.park(waiter, continuation) }
        timeout.cancel()
        return status
    }

    private func stopWaiting(_ waiter: UInt64, login id: String) {
        guard loginWaits.isWaiting(waiter), let record = logins[id] else { return }
        logins[id]?.waiters.removeAll { $0 == waiter }
        loginWaits.deliver(record.status(id: id), to: waiter)
    }

    private func pruneLogins() {
        let cutoff = now() - Self.loginRecordLifetime
        logins = logins.filter { _, record in record.endedAt.map { $0 > cutoff } ?? true }
    }
}
