import BrokerCrypto
import BrokerProtocol

// A resource server refused the access token; a caller needs a fresh ID token.
extension AccountStateMachine {
    /// A resource server refused `accessToken` (git's `erase` after a 401). When it is the current
    /// access token and a refresh is possible, the token is marked expired — it is no longer served,
    /// not even by the fast path — and a refresh starts (or is planned: the one-refresh-per-second
    /// cap applies, so a client that keeps reporting cannot make the daemon loop). A stale report
    /// (the token was already replaced) or a token that cannot be refreshed changes nothing: this
    /// is never a logout. `refreshScheduled` says which case it was.
    public mutating func tokenRejected(_ accessToken: Secret, now: Double) -> (refreshScheduled: Bool, actions: [Action]) {
        guard let tokens = currentTokens, tokens.canRefresh, tokens.accessToken == accessToken else { return (false, []) }
        var unusable = tokens
        unusable.expiresAt = min(policy.effectiveExpiry(of: tokens) ?? now, now)
        // Persisted too: after a restart the rejected token must not come back as valid.
        let actions = rearmingTimer(now: now) { machine -> [Action] in
            switch machine.state {
            case .active:
                return [.persistTokens(unusable)] + machine.adopt(unusable, now: now)
            case .refreshing(_, let attempt):
                // A refresh is already planned or in flight: it replaces the token; keep its schedule.
                machine.state = .refreshing(unusable, attempt)
                return [.persistTokens(unusable)]
            case .loggedOut, .loginRequired:
                return []
            }
        }
        return (true, actions)
    }

    /// A caller needs tokens newer than the current ones whatever their access-token lifetime says
    /// (an expired ID token): join or start a refresh and wait, within the one-refresh-per-second
    /// cap. Tokens that cannot be refreshed are answered as `tokenRequested` would.
    public mutating func refreshRequested(_ id: AccountRequestID, now: Double) -> [Action] {
        guard let tokens = currentTokens, tokens.canRefresh else { return tokenRequested(id, minTTL: nil, now: now) }
        return refreshBeforeAnswering(id, tokens: tokens, now: now)
    }
}
