import BrokerCrypto
import BrokerProtocol
import BrokerStore

// What narrowed tokens need of the machine: the account's refresh token replaced by the one a
// narrowed refresh rotated in, and `scope_lost` when a plain refresh brings back less than the grant.
extension AccountStateMachine {
    /// A narrowed refresh under `generation` spent the account's refresh token and the provider
    /// rotated it to `refreshToken`. The broker has already tried to commit the account's tokens
    /// with it, `saved`: `kept` is that set as held once committed (`keepingIDTokenStored`), nil
    /// when the save failed. The new refresh token replaces the old one in whatever tokens the
    /// machine holds, so the next refresh — plain or narrowed — presents it; the access token and
    /// scope stay the account's own. A failed save is retried like any other (`tokensNotStored`).
    /// Nothing for another generation (a later login voided the answer) or without tokens.
    public mutating func refreshTokenRotated(
        _ refreshToken: Secret, saved: TokenSet, kept: TokenSet?, generation: UInt64, now: Double
    ) -> [Action] {
        guard generation == self.generation, var tokens = currentTokens else { return [] }
        tokens.refreshToken = refreshToken
        replaceCurrentTokens(with: tokens)
        guard let kept else { return tokensNotStored(saved, reason: "narrowed refresh", now: now) }
        return tokensStored(saved, keptAs: kept, now: now)
    }

    /// A narrowed refresh under `generation` was refused by the provider (`invalid_grant`,
    /// `consent_required`, `interaction_required`, …). That refuses the caller's narrowing — a
    /// resource the user never consented to, a policy of the provider — and proves nothing about
    /// the refresh token: the state and tokens stay as they are. Only `invalid_grant` can also
    /// mean a dead refresh token, so then a plain refresh is started (or planned within the
    /// one-refresh-per-second cap) to find out: its own rejection signs the account out as usual
    /// (`refreshFailed`). Nothing when a refresh is already planned or in flight, for another
    /// generation (a later login), or without tokens.
    public mutating func narrowedRefreshRefused(invalidGrant: Bool, generation: UInt64, now: Double) -> [Action] {
        guard invalidGrant, generation == self.generation, case .active(let tokens, _) = state, tokens.canRefresh else {
            return []
        }
        return refreshInBackground(tokens, now: now)
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
