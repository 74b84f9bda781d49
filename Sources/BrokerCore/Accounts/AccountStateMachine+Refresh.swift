import BrokerProtocol
import BrokerStore

// Token requests, the timer, and refresh completions.
extension AccountStateMachine {
    /// A caller asks for a token (`authctl token NAME [--min-ttl S]`). The answer is immediate
    /// (`serveToken`/`fail`) or deferred (`waitForRefresh`, answered when the single in-flight refresh ends).
    public mutating func tokenRequested(_ id: AccountRequestID, minTTL: Double?, now: Double) -> [Action] {
        guard let tokens = currentTokens else { return [.fail(unavailableError(now: now), to: [id])] }
        switch policy.decide(tokens, minTTL: minTTL, now: now) {
        case .serve:
            return [.serveToken(tokens, to: [id])]
        case .serveAndRefresh:
            return [.serveToken(tokens, to: [id])] + refreshInBackground(tokens, now: now)
        case .refreshFirst:
            return refreshBeforeAnswering(id, tokens: tokens, now: now)
        case .expired:
            return rearmingTimer(now: now) { machine in
                machine.state = .loginRequired(.expired)
                return [.fail(machine.unavailableError(now: now), to: [id])]
            }
        }
    }

    /// A parked caller gave up (timeout, closed connection): forget it.
    public mutating func requestAbandoned(_ id: AccountRequestID) -> [Action] {
        waiters.removeAll { $0 == id }
        return []
    }

    /// The actor's timer fired: start what is due (proactive refresh, retry), notice an expiry or a login
    /// deadline, and re-arm the timer.
    public mutating func timerFired(now: Double) -> [Action] {
        rearmingTimer(now: now, force: true) { machine in
            var actions: [Action] = []
            if let login = machine.pendingLogin, login.deadline <= now {
                actions += machine.endLogin(login.loginID, because: .loginTimedOut, now: now)
            }
            actions += machine.retrySaveIfDue(now: now)
            switch machine.state {
            case .active(let tokens, let checkAt?) where checkAt <= now:
                // The planned time has come. A refreshable token is refreshed even though it is still
                // outside the margin (the jitter made the plan earlier); any other token has expired.
                guard tokens.canRefresh else { return actions + machine.adopt(tokens, now: now) }
                return actions + machine.startOrDefer(tokens, attempt: .first(now: now), now: now)
            case .refreshing(let tokens, let attempt):
                guard case .scheduled(let at, _) = attempt.phase, at <= now else { return actions }
                return actions + machine.startOrDefer(tokens, attempt: attempt, now: now)
            case .active, .loggedOut, .loginRequired:
                return actions
            }
        }
    }

    /// The refresh started under `generation` returned tokens. Stale results are revoked and dropped.
    public mutating func refreshSucceeded(_ newTokens: TokenSet, generation: UInt64, now: Double) -> [Action] {
        guard generation == self.generation, case .refreshing(let old, let attempt) = state,
            case .inFlight = attempt.phase
        else { return [.revoke(newTokens)] }
        let tokens = newTokens.carryingOver(from: old)
        lastRefreshAt = now
        lastError = errorAfterRefresh(from: old, to: tokens)
        return rearmingTimer(now: now) { $0.install(tokens, now: now) }
    }

    /// New tokens from a login or a refresh: persisted before anyone is served them, then every parked
    /// caller is answered, then the next refresh is planned.
    mutating func install(_ tokens: TokenSet, now: Double) -> [Action] {
        state = .active(tokens, checkAt: nil)
        let served = settleWaiters(now: now)
        return [.persistTokens(tokens)] + served + adopt(tokens, now: now)
    }

    /// The refresh started under `generation` failed. Transient: back off and keep serving the valid token.
    /// Terminal: `loginRequired`, tokens deleted, the user notified once.
    public mutating func refreshFailed(_ failure: RefreshFailure, generation: UInt64, now: Double) -> [Action] {
        guard generation == self.generation, case .refreshing(let tokens, let attempt) = state,
            case .inFlight = attempt.phase
        else { return [] }
        switch failure {
        case .transient(let message, let retryAfter):
            lastError = WireError(code: .providerUnavailable, message: "refresh failed: \(message)")
            let delay = backoff.delay(
                afterAttempt: attempt.number, retryAfter: retryAfter, jitterUnit: jitter.nextUnit())
            return rearmingTimer(now: now) { machine in
                let retry = RefreshAttempt(
                    number: attempt.number + 1, phase: .scheduled(at: now + delay, after: failure))
                machine.state = .refreshing(tokens, retry)
                return machine.settleWaiters(now: now)
            }
        case .terminal(let message):
            return refreshTokenRejected(message, now: now)
        }
    }

    /// The provider refused the refresh token itself (`invalid_grant`): the tokens are deleted and
    /// the account needs a login. Never from a narrowed refresh: its refusal is the caller's (`narrowedRefreshRefused`).
    mutating func refreshTokenRejected(_ message: String, now: Double) -> [Action] {
        let reason = LoginRequiredReason.refreshRejected(message)
        lastError = loginRequiredError(reason)
        return rearmingTimer(now: now) { machine in
            machine.state = .loginRequired(reason)
            let note = Notification(
                account: machine.account, reason: reason.message, url: machine.pendingLogin?.authorizationURL)
            return [.deleteTokens] + machine.settleWaiters(now: now) + [.notifyUser(note)]
        }
    }

    /// Makes `tokens` current: `active` with its next check time, or a refresh right away when it is
    /// already inside its margin or expired, or `loginRequired` when it expired without a refresh token.
    /// Used for restored, newly logged-in and freshly refreshed tokens and for the proactive timer.
    mutating func adopt(_ tokens: TokenSet, now: Double) -> [Action] {
        switch policy.decide(tokens, minTTL: nil, now: now) {
        case .serve:
            let checkAt =
                tokens.canRefresh
                ? policy.proactiveRefreshTime(for: tokens, jitterUnit: jitter.nextUnit())
                : policy.effectiveExpiry(of: tokens)
            state = .active(tokens, checkAt: checkAt)
            return []
        case .serveAndRefresh, .refreshFirst:
            return startOrDefer(tokens, attempt: .first(now: now), now: now)
        case .expired:
            state = .loginRequired(.expired)
            return []
        }
    }

    /// Starts `attempt` now, or schedules it for when the one-refresh-per-second cap allows.
    mutating func startOrDefer(_ tokens: TokenSet, attempt: RefreshAttempt, now: Double) -> [Action] {
        guard let refreshToken = tokens.refreshToken, !refreshToken.isEmpty else {
            // Unreachable: callers only refresh refreshable tokens. Fail closed rather than spin.
            state = .loginRequired(.expired)
            return []
        }
        let earliest = policy.earliestRefreshStart(after: lastRefreshStartedAt, now: now)
        guard earliest <= now else {
            let failure: RefreshFailure? = if case .scheduled(_, let failure) = attempt.phase { failure } else { nil }
            let deferred = RefreshAttempt(number: attempt.number, phase: .scheduled(at: earliest, after: failure))
            state = .refreshing(tokens, deferred)
            return []
        }
        lastRefreshStartedAt = now
        state = .refreshing(tokens, RefreshAttempt(number: attempt.number, phase: .inFlight(startedAt: now)))
        return [.startRefresh(refreshToken: refreshToken, generation: generation, attempt: attempt.number)]
    }

    /// Inside the margin: the caller was served; start a refresh unless one is already under way.
    mutating func refreshInBackground(_ tokens: TokenSet, now: Double) -> [Action] {
        guard case .active = state else { return [] }
        return rearmingTimer(now: now) { machine in
            machine.startOrDefer(tokens, attempt: .first(now: now), now: now)
        }
    }

    /// Expired, or `min_ttl` asks for more than is left: join or start the refresh and wait — unless it
    /// cannot happen soon (backoff after a failure, or the per-second cap with a still-valid token): then
    /// answer now with the valid token or `provider_unavailable`.
    mutating func refreshBeforeAnswering(
        _ id: AccountRequestID, tokens: TokenSet, now: Double
    ) -> [Action] {
        let valid = policy.isValid(tokens, at: now)
        switch state {
        case .refreshing(_, let attempt):
            if case .scheduled(_, .some) = attempt.phase { return [answer([id], now: now)] }
            waiters.append(id)
            return [.waitForRefresh(id)]
        case .active:
            if valid, policy.earliestRefreshStart(after: lastRefreshStartedAt, now: now) > now {
                return [.serveToken(tokens, to: [id])]
            }
            // Park the caller before the refresh starts, so no completion can ever miss it.
            waiters.append(id)
            return [.waitForRefresh(id)]
                + rearmingTimer(now: now) { machine in
                    machine.startOrDefer(tokens, attempt: .first(now: now), now: now)
                }
        case .loggedOut, .loginRequired:
            return [answer([id], now: now)]
        }
    }
}
