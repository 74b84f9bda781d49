import BrokerProtocol
import BrokerStore
import WireFormats

// The errors callers see. Messages tell people what to do and never contain token values.
extension AccountStateMachine {
    /// Why no token can be served now.
    func unavailableError(now: Double) -> WireError {
        if let tokens = currentTokens, tokens.canRefresh { return providerUnavailableError(tokens) }
        if let pendingLogin { return loginPendingError(pendingLogin) }
        switch state {
        case .loginRequired(let reason): return loginRequiredError(reason)
        case .active, .refreshing: return loginRequiredError(.expired)
        case .loggedOut:
            return WireError(
                code: .loginRequired,
                message: "Account '\(account)' is not logged in. Log in with: authctl login \(account)")
        }
    }

    func loginRequiredError(_ reason: LoginRequiredReason) -> WireError {
        WireError(
            code: .loginRequired,
            message: "Account '\(account)' needs a new login (\(reason.message)). "
                + "Log in with: authctl login \(account)")
    }

    func loginPendingError(_ login: PendingLogin) -> WireError {
        WireError(
            code: .loginPending,
            message: "A login for '\(account)' is pending: finish it in the browser (authorization_url), "
                + "or run: authctl login \(account)",
            authorizationURL: login.authorizationURL)
    }

    func providerUnavailableError(_ tokens: TokenSet) -> WireError {
        var message = "The provider for '\(account)' cannot give a fresh token"
        if let lastError { message += " (\(lastError.message))" }
        if let expiry = policy.effectiveExpiry(of: tokens) {
            message += " and the last token expired at \(RFC3339.format(unixSeconds: expiry))"
        }
        return WireError(code: .providerUnavailable, message: message + ". authbroker keeps retrying; try again later.")
    }

    func loginTimedOutError() -> WireError {
        WireError(
            code: .providerUnavailable,
            message: "The login for '\(account)' timed out. Try again with: authctl login \(account)")
    }

    func loginCancelledError(_ why: String) -> WireError {
        WireError(code: .conflict, message: "The login for '\(account)' was cancelled: \(why).")
    }
}
