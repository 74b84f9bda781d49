import BrokerProtocol
import BrokerStore

// Start-up, logins, logout and configuration changes.
extension AccountStateMachine {
    /// At start-up, with the tokens found in storage (nil: none). A valid token is served at once; an
    /// expired or nearly expired one with a refresh token is refreshed at once; an expired one without a
    /// refresh token means `loginRequired` (no notification: nothing failed, the daemon just started).
    public mutating func restored(_ tokens: TokenSet?, now: Double) -> [Action] {
        rearmingTimer(now: now) { machine in
            guard let tokens else {
                machine.state = .loggedOut
                return []
            }
            return machine.adopt(tokens, now: now)
        }
    }

    /// The daemon started a login (its listener is up, `login.authorizationURL` is what the user opens).
    /// Tokens already held keep being served meanwhile. A login already pending is superseded — the
    /// daemon normally joins it instead of starting a second one.
    public mutating func loginStarted(_ login: PendingLogin, now: Double) -> [Action] {
        rearmingTimer(now: now) { machine in
            var actions: [Action] = []
            if let old = machine.pendingLogin, old.loginID != login.loginID {
                let reason = machine.loginCancelledError("a new login started")
                actions.append(.cancelLogin(loginID: old.loginID, reason: reason))
            }
            machine.pendingLogin = login
            return actions
        }
    }

    /// The pending login `loginID` produced tokens: they replace whatever was held. The generation moves
    /// on, so a refresh still in flight for the old tokens is dropped when it completes. A login that is
    /// no longer pending (logged out, timed out, superseded) only has its tokens revoked.
    public mutating func loginSucceeded(loginID: String, tokens: TokenSet, now: Double) -> [Action] {
        guard pendingLogin?.loginID == loginID else { return [.revoke(tokens)] }
        return rearmingTimer(now: now) { machine in
            machine.pendingLogin = nil
            machine.generation &+= 1
            machine.lastError = nil
            return machine.install(tokens, now: now)
        }
    }

    /// The pending login `loginID` failed (denied, wrong state, validation error). Tokens still held
    /// stay in use; without them the account needs a login.
    public mutating func loginFailed(loginID: String, reason: String, now: Double) -> [Action] {
        rearmingTimer(now: now) { $0.endLogin(loginID, because: .loginFailed(reason), now: now) }
    }

    /// The pending login `loginID` passed its deadline. The timer reports this by itself
    /// (`timerFired`); the daemon may also report it, e.g. when its listener gives up first.
    public mutating func loginTimedOut(loginID: String, now: Double) -> [Action] {
        rearmingTimer(now: now) { $0.endLogin(loginID, because: .loginTimedOut, now: now) }
    }

    /// The user gave up on the pending login (`authctl login --cancel`, Ctrl-C): it ends without
    /// tokens, and the account keeps its state, tokens and error — nothing was learnt about them.
    public mutating func loginCancelled(because why: String, now: Double) -> [Action] {
        rearmingTimer(now: now) { $0.cancelPendingLogin(because: why) }
    }

    /// Ends the pending login `loginID` without tokens.
    mutating func endLogin(_ loginID: String, because reason: LoginRequiredReason, now: Double) -> [Action] {
        guard let login = pendingLogin, login.loginID == loginID else { return [] }
        pendingLogin = nil
        // A login nobody finished says nothing about tokens the account still holds: it stays
        // active without an error (`authctl status` must not show provider_unavailable).
        if reason != .loginTimedOut || currentTokens == nil {
            lastError = reason == .loginTimedOut ? loginTimedOutError() : loginRequiredError(reason)
        }
        if currentTokens == nil { state = .loginRequired(reason) }
        guard reason == .loginTimedOut else { return [] }
        return [.cancelLogin(loginID: loginID, reason: loginTimedOutError())]
    }

    /// `authctl logout` (or `account remove`): from any state to `loggedOut`. The pending login is
    /// cancelled, the tokens revoked (best effort) and deleted, parked callers told to log in, and any
    /// refresh in flight voided by the new generation.
    public mutating func logout(now: Double) -> [Action] {
        rearmingTimer(now: now) { machine in
            var actions = machine.cancelPendingLogin(because: "the account was logged out")
            if let tokens = machine.currentTokens { actions.append(.revoke(tokens)) }
            machine.generation &+= 1
            machine.state = .loggedOut
            machine.lastError = nil
            return actions + [.deleteTokens] + machine.settleWaiters(now: now)
        }
    }

    /// The account's configuration was edited or reloaded (SIGHUP). Only a security-relevant change
    /// (issuer, client, secret, endpoints, scopes, audience) voids the tokens, the pending login and any
    /// refresh in flight, as in pizauth: tokens are kept only when that part of the configuration is equal.
    /// The old tokens are deleted, not revoked: they belong to the old client and endpoints.
    public mutating func configurationChanged(securityRelevant: Bool, now: Double) -> [Action] {
        guard securityRelevant else { return [] }
        return rearmingTimer(now: now) { machine in
            var actions = machine.cancelPendingLogin(because: "the account's configuration changed")
            machine.generation &+= 1
            if case .loggedOut = machine.state {
                return actions
            }
            if machine.currentTokens != nil { actions.append(.deleteTokens) }
            machine.state = .loginRequired(.configurationChanged)
            return actions + machine.settleWaiters(now: now)
        }
    }

    private mutating func cancelPendingLogin(because why: String) -> [Action] {
        guard let login = pendingLogin else { return [] }
        pendingLogin = nil
        return [.cancelLogin(loginID: login.loginID, reason: loginCancelledError(why))]
    }
}
