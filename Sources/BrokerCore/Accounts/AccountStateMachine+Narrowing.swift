import BrokerCrypto
import BrokerProtocol
import BrokerStore

// What narrowed tokens need of the machine: the account's refresh token replaced by the one a
// narrowed refresh rotated in, and `scope_lost` when a plain refresh brings back less than the grant.
extension AccountStateMachine {
    /// A narrowed refresh (already committed to the vault) spent the account's refresh token and
    /// answered with `refreshToken`: it replaces the old one in whatever tokens the machine holds,
    /// so the next refresh — plain or narrowed — presents the current one. The access token and
    /// scope stay the account's own. Returns the updated set, nil when there is none to update.
    public mutating func refreshTokenRotated(_ refreshToken: Secret) -> TokenSet? {
        switch state {
        case .active(var tokens, let checkAt):
            tokens.refreshToken = refreshToken
            state = .active(tokens, checkAt: checkAt)
            return tokens
        case .refreshing(var tokens, let attempt):
            tokens.refreshToken = refreshToken
            state = .refreshing(tokens, attempt)
            return tokens
        case .loggedOut, .loginRequired:
            return nil
        }
    }

    /// A narrowed refresh under `generation` was told the refresh token is dead (`invalid_grant`):
    /// the account learns it now, exactly as from its own refresh, not at its next plain refresh.
    /// A later login (another generation) is left alone.
    public mutating func narrowedRefreshRejected(_ message: String, generation: UInt64, now: Double) -> [Action] {
        guard generation == self.generation else { return [] }
        switch state {
        case .active, .refreshing: return refreshTokenRejected(message, now: now)
        case .loggedOut, .loginRequired: return []
        }
    }

    /// The scopes of `old`'s grant that `new` no longer has (RFC 6749 §6: a refresh keeps the
    /// original grant; some providers narrow it for good after one narrowed refresh). Empty when
    /// either set does not state its scope.
    static func lostScopes(from old: TokenSet, to new: TokenSet) -> [String] {
        guard let before = old.scope, let after = new.scope else { return [] }
        let kept = Set(after.split(separator: " "))
        return before.split(separator: " ").filter { !kept.contains($0) }.map(String.init)
    }

    /// The error a refresh that lost scopes leaves in `last_error` until the next login.
    func scopeLostError(_ lost: [String]) -> WireError {
        WireError(
            code: .scopeLost,
            message: "Account '\(account)' lost scopes on refresh (\(lost.joined(separator: " "))): its provider narrowed "
                + "the grant. Log in again with: authctl login \(account)")
    }

    /// `last_error` after a successful refresh from `old` to `new`: `scope_lost` stays until a login.
    func errorAfterRefresh(from old: TokenSet, to new: TokenSet) -> WireError? {
        let lost = Self.lostScopes(from: old, to: new)
        if !lost.isEmpty { return scopeLostError(lost) }
        return lastError?.code == .scopeLost ? lastError : nil
    }
}
