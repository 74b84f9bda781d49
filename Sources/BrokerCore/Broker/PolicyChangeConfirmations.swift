import BrokerProtocol
import Synchronization

/// One-time codes for caller-policy changes (`PUT /v1/accounts/{name}` that widens the policy of
/// an account that has one): the first request without a code gets a fresh code sent through the
/// notification, and only a retry carrying it, for the very same proposed policy, goes through.
/// Kept in memory only; per account, the latest proposal replaces an earlier one.
final class PolicyChangeConfirmations: Sendable {
    /// What a retry with a code found.
    enum Check: Equatable {
        case accepted
        /// No code was sent for this account (or it was used or burnt): ask again without one.
        case notIssued
        /// The code pending was sent for another proposed policy (no try is used up).
        case otherChange
        case wrong(remaining: Int)
        /// Wrong for the last time: the code is gone, a new one must be asked for.
        case burnt
    }

    private struct Pending {
        var proposal: CallerPolicy?
        var code: OneTimeCode
    }

    private let pending = Mutex<[AccountKey: Pending]>([:])

    /// A fresh code for changing `account`'s policy to `proposal`, as people read it (for the
    /// notification only), replacing any code pending for the account.
    func issue(_ account: AccountKey, proposal: CallerPolicy?) -> String {
        let code = OneTimeCode()
        pending.withLock { $0[account] = Pending(proposal: proposal, code: code) }
        return code.shown
    }

    /// Checks `code` for changing `account`'s policy to `proposal`; accepted or burnt, it is used up.
    func check(_ account: AccountKey, proposal: CallerPolicy?, code: String) -> Check {
        pending.withLock { table in
            guard var entry = table[account] else { return .notIssued }
            guard entry.proposal == proposal else { return .otherChange }
            switch entry.code.check(code) {
            case .accepted:
                table[account] = nil
                return .accepted
            case .wrong(let remaining):
                table[account] = entry
                return .wrong(remaining: remaining)
            case .burnt:
                table[account] = nil
                return .burnt
            }
        }
    }

    /// The account was removed: a code sent for it must not change a new account of that name.
    func forget(_ account: AccountKey) {
        _ = pending.withLock { $0.removeValue(forKey: account) }
    }
}
