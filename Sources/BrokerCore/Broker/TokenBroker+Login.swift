import BrokerHTTP
import BrokerProtocol
import BrokerStore
import WireFormats

// Logins: start (or join), outcome, long-poll.
extension TokenBroker {
    /// Starts (or joins) `key`'s login. Keyed by owner: another user's `startLogin` for an account of
    /// the same name reaches that user's own account, never this pending login or its URL.
    public func startLogin(account key: AccountKey, request: LoginRequest) async throws(WireError) -> LoginStarted {
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        // Only one pending login per account: a second start joins the first.
        if let started = logins.joinable(runtime.machine.pendingLogin?.loginID) { return joined(started, request) }
        if let starting = logins.start(for: key) { return joined(try await starting.value.get(), request) }
        let task = Task { await self.beginLogin(key, request: request) }
        logins.setStart(task, for: key)
        let result = await task.value
        logins.setStart(nil, for: key)
        return try result.get()
    }

    /// A start that joins a pending login still says whether it accepts another user.
    private func joined(_ started: LoginStarted, _ request: LoginRequest) -> LoginStarted {
        if request.newSubject == true { logins.allowNewSubject(login: started.loginID) }
        return started
    }

    private func beginLogin(_ key: AccountKey, request: LoginRequest) async -> Result<LoginStarted, WireError> {
        let name = key.name
        let timeout = request.timeoutSeconds.map(Double.init) ?? options.defaultLoginTimeout
        if let problem = request.addScopesProblem {
            return .failure(fail(WireError(code: .invalidRequest, message: problem)))
        }
        guard timeout >= 1, timeout <= options.maximumLoginTimeout else {
            return .failure(
                fail(
                    WireError(
                        code: .invalidRequest,
                        message: "The login timeout must be between 1 and \(Int(options.maximumLoginTimeout)) seconds.")))
        }
        let login: BrokerLogin
        var stepUpScopes: [String] = []
        do throws(OIDCError) {
            let metadata = try await metadata(for: key, needing: loginEndpoint(key, device: request.device == true))
            guard let runtime = accounts[key] else { return .failure(unknownAccount(key)) }
            var client = try runtime.loginClient()
            for scope in request.addScopes ?? [] where !client.scopes.contains(scope) { client.scopes.append(scope) }
            for scope in stepUps.scopes(key) where !client.scopes.contains(scope) {
                client.scopes.append(scope)
                stepUpScopes.append(scope)
            }
            if request.device == true {
                login = try await BrokerLogin.device(
                    client: oidcClient(for: runtime.configuration), metadata: metadata, configuration: client)
            } else {
                try await probeProvider(runtime.configuration)
                guard let factory = options.loginFlowFactory else {
                    return .failure(
                        fail(
                            WireError(
                                code: .invalidRequest,
                                message: "This daemon cannot run browser logins; use: authctl login \(name) --device")))
                }
                let context = LoginContext(
                    account: name, client: oidcClient(for: runtime.configuration), metadata: metadata, configuration: client,
                    redirect: runtime.loopbackRedirect, privateUseRedirect: runtime.privateUseRedirect,
                    timeout: .milliseconds(Int64(timeout * 1000)))
                login = try await factory(context)
            }
        } catch {
            let code: WireErrorCode =
                if error.isPinMismatch { .tlsPinMismatch } else if case .transient = error.disposition {
                    .providerUnavailable
                } else { .invalidRequest }
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
            verificationURI: login.verificationURI, stepUpScopes: stepUpScopes.isEmpty ? nil : stepUpScopes)
        logins.add(
            LoginRecord(account: key, login: login, started: started, allowsNewSubject: request.newSubject == true),
            id: flow.loginID, now: now())
        let pending = AccountStateMachine.PendingLogin(
            loginID: flow.loginID, authorizationURL: login.authorizationURL, deadline: deadline)
        event(key) { machine, now in machine.loginStarted(pending, now: now) }
        logger.with(key).info("login started", ["device": request.device == true ? "yes" : "no"])
        logins.setTask(background { broker in await broker.awaitLogin(flow, account: key) }, login: flow.loginID)
        return .success(started)
    }

    /// With cached metadata (and no pushed request) nothing at a browser login's start reaches the
    /// provider, so one that is down showed only as the login's timeout, minutes later. One GET of
    /// its metadata document tells at once: any HTTP answer will do, a network failure ends the
    /// start with `provider_unavailable`. Manual endpoints have no document and are not probed.
    private func probeProvider(_ configuration: AccountConfiguration) async throws(OIDCError) {
        guard configuration.manualMetadata == nil, let documentURL = configuration.metadataDocumentURL else { return }
        let request = HTTPClientRequest(method: "GET", url: documentURL, headers: OIDCHTTP.acceptJSON)
        _ = try await OIDCHTTP.send(request, oidcClient(for: configuration).transport)
    }

    /// The endpoint a login is about to use that the cached metadata may lack (gap-filled from the
    /// companion document): the device endpoint, or the PAR endpoint unless the account says `--par never`.
    private func loginEndpoint(_ key: AccountKey, device: Bool) -> ProviderEndpoint? {
        if device { return .deviceAuthorization }
        return accounts[key]?.configuration.pushedAuthorization == .never ? nil : .pushedAuthorizationRequest
    }

    /// Waits for the flow's outcome, commits the tokens, then tells the machine.
    private func awaitLogin(_ flow: any LoginFlow, account key: AccountKey) async {
        let result = await flow.result()
        let loginID = flow.loginID
        guard logins.pending(loginID) != nil else { return }  // cancelled or timed out meanwhile
        switch result {
        case .success(let success):
            let tokens = success.tokens
            var subject = success.subject
            if subject == nil { subject = await userInfoSubject(tokens, account: key) }
            guard let runtime = accounts[key], runtime.machine.pendingLogin?.loginID == loginID else {
                background { broker in _ = await broker.revoke(tokens, account: key) }
                return
            }
            // Before anything is committed: another user's login must not replace this user's tokens.
            let check = LoginSubjectCheck(
                previous: runtime.subject, signedIn: subject,
                accountName: key.name, allowsNewSubject: logins.pending(loginID)?.allowsNewSubject == true)
            if let refusal = check.refusal {
                background { broker in _ = await broker.revoke(tokens, account: key) }
                logger.with(key).warning("login refused: the provider signed in another user")
                event(key) { machine, now in machine.loginFailed(loginID: loginID, reason: refusal, now: now) }
                let wire = WireError(code: .loginRequired, message: "The login for '\(key.name)' failed: \(refusal)")
                endLogin(loginID, outcome: .failed, error: wire, subject: nil)
                return
            }
            let time = now()
            let status = TokenStatus(lastRefreshAt: runtime.machine.lastRefreshAt, subject: subject)
            committingLogins.insert(key)
            let kept = await persist(tokens, status: status, account: key)
            committingLogins.remove(key)
            accounts[key]?.subject = subject
            event(key, at: time) { machine, now in
                let actions = machine.loginSucceeded(loginID: loginID, tokens: kept ?? tokens, now: now)
                return kept.map { actions + machine.tokensStored($0, now: now) } ?? actions
            }
            logger.with(key).info("login succeeded", ["subject": subject ?? "unknown"])
            stepUps.clear(key)
            endLogin(loginID, outcome: .succeeded, error: nil, subject: subject)
        case .failure(let error) where error == .loginExpired:
            event(key) { machine, now in machine.loginTimedOut(loginID: loginID, now: now) }
            endLogin(loginID, outcome: .timedOut, error: accounts[key]?.machine.loginTimedOutError(), subject: nil)
        case .failure(let error):
            logger.with(key).warning("login failed: \(error)")
            event(key) { machine, now in machine.loginFailed(loginID: loginID, reason: error.description, now: now) }
            let wire = WireError(code: .loginRequired, message: "The login for '\(key.name)' failed: \(error.description)")
            endLogin(loginID, outcome: .failed, error: wire, subject: nil)
        }
    }

    /// The subject from userinfo when the login gave no ID token (best effort, display only).
    private func userInfoSubject(_ tokens: TokenSet, account key: AccountKey) async -> String? {
        guard let metadata = try? await metadata(for: key, needing: .userinfo), metadata.userinfoEndpoint != nil,
            let configuration = accounts[key]?.configuration
        else { return nil }
        return try? await oidcClient(for: configuration).userInfo(metadata: metadata, tokens: tokens).subject
    }

    /// `DELETE /v1/accounts/{name}/login`: the caller ends its pending login of `key`.
    public func cancelLogin(account key: AccountKey) async throws(WireError) -> LoginStatus {
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        guard let loginID = runtime.machine.pendingLogin?.loginID else {
            throw fail(WireError(code: .conflict, message: "No login is pending for '\(key.name)'."))
        }
        event(key) { machine, now in machine.loginCancelled(because: "the user cancelled it", now: now) }
        logger.with(key).info("login cancelled by the user")
        return logins.status(loginID, owner: key.owner)
            ?? LoginStatus(loginID: loginID, account: key.name, outcome: .failed)
    }

    /// `cancelLogin`: a timeout, a superseding login or a logout ends the login without tokens.
    func cancelLogin(_ loginID: String, reason: WireError) {
        guard let record = logins.pending(loginID) else { return }
        let outcome: LoginStatus.Outcome = reason.code == .providerUnavailable ? .timedOut : .failed
        endLogin(loginID, outcome: outcome, error: reason, subject: nil)
        record.login?.flow.cancel()
    }

    private func endLogin(_ loginID: String, outcome: LoginStatus.Outcome, error: WireError?, subject: String?) {
        guard let ended = logins.end(loginID, outcome: outcome, error: error, subject: subject, now: now()) else { return }
        let counted: BrokerMetrics.LoginOutcome =
            switch outcome {
            case .succeeded: .succeeded
            case .timedOut: .timedOut
            case .failed, .pending: error?.code == .conflict ? .cancelled : .failed
            }
        counters.login(counted)
        for id in ended.waiters { loginWaits.deliver(ended.status, to: id) }
    }

    /// Another owner's login is answered exactly like a login that does not exist.
    public func loginStatus(id: String, owner: UInt32, wait: Double) async throws(WireError) -> LoginStatus {
        guard let status = logins.status(id, owner: owner) else {
            throw fail(
                WireError(
                    code: .unknownAccount,
                    message: "No login with id '\(id)' (it may have ended long ago). Start one with: authctl login NAME"))
        }
        let wait = min(max(wait.isFinite ? wait : 0, 0), options.maximumLoginWait)
        guard status.outcome == .pending, wait > 0 else { return status }
        let waiter = number()
        logins.addWaiter(waiter, login: id)
        let deadline = now() + wait
        let timeout = Task {
            do { try await self.sleep(until: deadline) } catch { return }
            self.stopWaiting(waiter, login: id)
        }
        let answer = await withCheckedContinuation { continuation in loginWaits.park(waiter, continuation) }
        timeout.cancel()
        return answer
    }

    private func stopWaiting(_ waiter: UInt64, login id: String) {
        guard loginWaits.isWaiting(waiter), let status = logins.removeWaiter(waiter, login: id) else { return }
        loginWaits.deliver(status, to: waiter)
    }
}
