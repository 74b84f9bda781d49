import BrokerProtocol
import BrokerStore

// The token store's answers to `persistTokens`: a failed save keeps the tokens in memory and retries.
extension AccountStateMachine {
    /// The current tokens are not in the token store: its last save failed (disk full, I/O error).
    ///
    /// With rotation the provider has already retired the stored refresh token, so until a save
    /// succeeds the only usable copy is in memory: a crash or a stop then costs a login. The
    /// machine keeps the tokens in use (callers still get them; refreshes go on as planned — the
    /// stored copy is stale either way, and a further rotation makes it no staler), retries the
    /// save with backoff (1, 2, 4 … s, at most `RefreshBackoff.maximumSaveRetryDelay` apart), shows
    /// `storage_failed` as the last error and notifies the user once per episode.
    public struct UnsavedTokens: Sendable, Equatable {
        /// Failed saves in a row.
        public var failures: Int
        /// When the next save is due; nil while one is under way.
        public var retryAt: Double?
        /// Why the last save failed (for people; no secrets).
        public var reason: String
    }

    /// The store committed `tokens`. When they are the current tokens, nothing is unsaved any more
    /// and a `storage_failed` last error is cleared. An older set saved late changes nothing.
    public mutating func tokensStored(_ tokens: TokenSet, now: Double) -> [Action] {
        guard tokens == currentTokens, unsaved != nil else { return [] }
        return rearmingTimer(now: now) { machine in
            machine.unsaved = nil
            if machine.lastError?.code == .storageFailed { machine.lastError = nil }
            return []
        }
    }

    /// The store committed `tokens`, which the broker keeps as `kept` (the ID token in the vault
    /// only, `TokenSet.keepingIDTokenStored`): `kept` takes their place when they are the current
    /// tokens, then as `tokensStored(_:now:)`.
    public mutating func tokensStored(_ tokens: TokenSet, keptAs kept: TokenSet, now: Double) -> [Action] {
        if tokens == currentTokens { replaceCurrentTokens(with: kept) }
        return tokensStored(kept, now: now)
    }

    /// Puts `tokens` in place of the current ones, in the same state and phase.
    mutating func replaceCurrentTokens(with tokens: TokenSet) {
        switch state {
        case .active(_, let checkAt): state = .active(tokens, checkAt: checkAt)
        case .refreshing(_, let attempt): state = .refreshing(tokens, attempt)
        case .loggedOut, .loginRequired: break
        }
    }

    /// The store could not commit `tokens` (`reason` says why). When they are the current tokens
    /// the save is retried with backoff; the first failure of an episode notifies the user. Tokens
    /// that are no longer current are not retried: their successor's save is what matters.
    public mutating func tokensNotStored(_ tokens: TokenSet, reason: String, now: Double) -> [Action] {
        guard tokens == currentTokens else { return [] }
        let failures = (unsaved?.failures ?? 0) + 1
        let delay = min(
            backoff.delay(afterAttempt: failures, retryAfter: nil, jitterUnit: jitter.nextUnit()),
            RefreshBackoff.maximumSaveRetryDelay)
        lastError = storageFailedError(reason)
        return rearmingTimer(now: now) { machine in
            machine.unsaved = UnsavedTokens(failures: failures, retryAt: now + delay, reason: reason)
            guard failures == 1 else { return [] }
            let note = Notification(
                account: machine.account, reason: "the new tokens cannot be saved: \(reason)", url: nil)
            return [.notifyUser(note)]
        }
    }

    /// `timerFired`'s part: a save that is due is attempted again (one at a time).
    mutating func retrySaveIfDue(now: Double) -> [Action] {
        guard var pending = unsaved, let retryAt = pending.retryAt, retryAt <= now else { return [] }
        guard let tokens = currentTokens else {
            unsaved = nil  // logged out or voided meanwhile: nothing left to save
            return []
        }
        pending.retryAt = nil
        unsaved = pending
        return [.persistTokens(tokens)]
    }

    /// When the next save is due, if one is.
    var saveDueAt: Double? {
        guard currentTokens != nil else { return nil }
        return unsaved?.retryAt
    }

    func storageFailedError(_ reason: String) -> WireError {
        WireError(
            code: .storageFailed,
            message: "The new tokens of '\(account)' could not be saved (\(reason)); they are kept in memory "
                + "and saved again every few seconds. Free disk space in the state directory; until "
                + "`authctl status` shows no error, a crash of authbrokerd would cost a new login.")
    }
}
