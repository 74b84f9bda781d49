import BrokerCrypto
import BrokerProtocol
import BrokerStore
import WireFormats

// Serving tokens: the synchronous fast path, the actor path with single-flight waits, ID tokens
// (`authctl kube-credential --id-token`) and rejected access tokens (git's `erase`).
extension TokenBroker {
    /// The fast path: the snapshot's grant while it is valid and outside the refresh margin. No actor
    /// hop, no allocation beyond the grant, one lock.
    public nonisolated func cachedToken(account: AccountKey, now: Double) -> TokenGrant? {
        cache.grant(account: account, now: now)
    }

    /// The account's `--allow-exe` policy (nil: none, or no such account), read without the actor.
    public nonisolated func callerPolicy(account: AccountKey) -> CallerPolicy? {
        callerPolicies.policy(for: account)
    }

    /// A token per the `min_ttl` rules (`RefreshPolicy.decide`): served at once, or after the account's
    /// single in-flight refresh (bounded by `Options.tokenWaitTimeout`), or a wire error —
    /// `login_required`, `login_pending` (with the URL), `provider_unavailable`, `unknown_account`.
    public nonisolated func token(account key: AccountKey, minTTL: Double?) async throws(WireError)
        -> TokenGrant
    {
        if let minTTL, !minTTL.isFinite || minTTL < 0 {
            throw fail(WireError(code: .invalidRequest, message: "min_ttl must be a number of seconds ≥ 0."))
        }
        return try await answer(account: key) { machine, id, now in machine.tokenRequested(id, minTTL: minTTL, now: now) }
    }

    /// `authctl refresh`: a refresh now, joined if one is under way, whatever the token has left (the
    /// machine's `refreshRequested`, as for an expired ID token); tokens that cannot be refreshed
    /// are answered as a plain token request would.
    public nonisolated func refreshedToken(account key: AccountKey) async throws(WireError) -> TokenGrant {
        try await answer(account: key) { machine, id, now in machine.refreshRequested(id, now: now) }
    }

    /// Feeds a request event to the account's machine and returns its answer: at once, or after the
    /// account's single in-flight refresh (bounded by `Options.tokenWaitTimeout`). The wait is off
    /// the actor: the refresh's answer resumes the caller where it runs (a socket request: its
    /// connection thread) instead of queueing it behind the refresh that still holds the actor
    /// (docs/BENCHMARKS-archive.md, "Forced refresh: the URL parses").
    nonisolated func answer(
        account key: AccountKey,
        _ request: @escaping @Sendable (inout AccountStateMachine, AccountRequestID, Double) -> [AccountStateMachine.Action]
    ) async throws(WireError) -> TokenGrant {
        switch try await ask(account: key, request) {
        case .answered(let result):
            return try result.get()
        case .parked(let id):
            return try await withCheckedContinuation { continuation in answers.park(id, continuation) }.get()
        }
    }

    private enum Asked: Sendable {
        case answered(Result<TokenGrant, WireError>)
        case parked(UInt64)
    }

    /// The request's event on the actor: its answer when the machine gave one at once, else its
    /// number, registered to park (with its deadline).
    private func ask(
        account key: AccountKey, _ request: (inout AccountStateMachine, AccountRequestID, Double) -> [AccountStateMachine.Action]
    ) throws(WireError) -> Asked {
        guard accounts[key] != nil else { throw unknownAccount(key) }
        guard !isShutDown else {
            throw fail(WireError(code: .providerUnavailable, message: "authbroker is shutting down; try again shortly."))
        }
        let id = number()
        event(key) { machine, now in request(&machine, AccountRequestID(id), now) }
        if let answer = answers.take(id) { return .answered(answer) }
        answers.expect(id)
        if let watchdog = parkedDeadlines.park(id, account: key, until: now() + options.tokenWaitTimeout) {
            startParkedWatchdog(until: watchdog)
        }
        return .parked(id)
    }

    /// Answers request `id`, parked or about to park; its deadline goes with it. False when it
    /// already had an answer.
    @discardableResult
    func deliver(_ result: Result<TokenGrant, WireError>, to id: UInt64) -> Bool {
        parkedDeadlines.remove(id)
        return answers.deliver(result, to: id)
    }

    /// The one task that abandons parked requests whose time is up (`ParkedDeadlines`).
    private func startParkedWatchdog(until deadline: Double) {
        guard !isShutDown else { return }
        parkedWatchdog?.cancel()
        // Detached: it sleeps first and needs the actor only when it wakes, so it does not take the
        // actor as the request parks, while the refresh starting beside it needs it.
        parkedWatchdog = Task.detached { [self] in
            do { try await sleep(until: deadline) } catch { return }
            await parkedWatchdogFired(deadline: deadline)
        }
    }

    private func parkedWatchdogFired(deadline: Double) {
        guard let (due, next) = parkedDeadlines.fire(deadline: deadline, now: now()) else { return }
        parkedWatchdog = nil
        for request in due { abandon(request.id, account: request.account) }
        if let next { startParkedWatchdog(until: next) }
    }

    /// A parked token request waited too long: the machine forgets it and the caller is told.
    private func abandon(_ id: UInt64, account key: AccountKey) {
        guard answers.isWaiting(id) else { return }
        event(key) { machine, _ in machine.requestAbandoned(AccountRequestID(id)) }
        let error = WireError(
            code: .providerUnavailable,
            message: "The provider for '\(key.name)' did not answer the refresh in time. Try again shortly.")
        deliver(.failure(fail(error)), to: id)
    }

    /// Prometheus text exposition; the account gauge counts only `owner`'s accounts.
    public nonisolated func metrics(owner: UInt32) -> String {
        counters.render(owner: owner, cacheHits: cache.hits.load(ordering: .relaxed))
    }

    /// A resource server refused `accessToken`: see `AccountStateMachine.tokenRejected`.
    public func tokenRejected(account key: AccountKey, accessToken: String) async throws(WireError)
        -> TokenRejectionResult
    {
        guard accounts[key] != nil else { throw unknownAccount(key) }
        guard !accessToken.isEmpty else {
            throw fail(WireError(code: .invalidRequest, message: "'access_token' must name the token that was refused."))
        }
        var scheduled = false
        event(key) { machine, now in
            let (refresh, actions) = machine.tokenRejected(Secret(accessToken), now: now)
            scheduled = refresh
            return actions
        }
        counters.tokenRejected(refreshScheduled: scheduled)
        logger.with(key).info(
            "a client reported the access token as rejected",
            ["refresh": scheduled ? "scheduled" : "not needed (not the current token, or not refreshable)"])
        return TokenRejectionResult(refreshScheduled: scheduled)
    }

    /// The current ID token while it has more than `minTTL` seconds left; else one refresh (within
    /// the per-second cap) and the ID token it brought. `login_required` when there is none: never
    /// logged in, or the provider returns no (new) ID token on refresh.
    public func idToken(account key: AccountKey, minTTL: Double?) async throws(WireError)
        -> IDTokenGrant
    {
        let minTTL = minTTL ?? 0
        guard minTTL.isFinite, minTTL >= 0 else {
            throw fail(WireError(code: .invalidRequest, message: "min_ttl must be a number of seconds ≥ 0."))
        }
        guard accounts[key] != nil else { throw unknownAccount(key) }
        if let grant = await currentIDToken(key, minTTL: minTTL) { return served(grant) }
        // Throws the usual errors when there are no tokens (login_required, login_pending…).
        _ = try await answer(account: key) { machine, id, now in machine.refreshRequested(id, now: now) }
        if let grant = await currentIDToken(key, minTTL: minTTL) { return served(grant) }
        let name = key.name
        throw fail(
            WireError(
                code: .loginRequired,
                message: "Account '\(name)' has no ID token valid for \(Int(minTTL)) more seconds, and a refresh did not "
                    + "bring one. Log in with: authctl login \(name)"))
    }

    /// The ID token of the current tokens (read back from the vault: it is not kept in memory).
    private func currentIDToken(_ key: AccountKey, minTTL: Double) async -> IDTokenGrant? {
        guard let current = accounts[key]?.machine.currentTokens, current.idToken != nil else { return nil }
        let tokens: TokenSet
        do {
            tokens = try await readingIDToken(current, account: key)
        } catch {
            logger.with(key).error("cannot read the stored ID token: \(error)")
            return nil
        }
        guard let idToken = tokens.idToken?.token, let claims = tokens.idTokenClaims else { return nil }
        let expiry = claims.expiresAt.timeIntervalSince1970
        guard expiry - now() > minTTL else { return nil }
        return IDTokenGrant(idToken: idToken.revealString(), expiresAt: RFC3339.format(unixSeconds: expiry))
    }

    private func served(_ grant: IDTokenGrant) -> IDTokenGrant {
        counters.idTokensServed(1)
        return grant
    }
}
