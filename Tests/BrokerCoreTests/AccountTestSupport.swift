import BrokerCore
import BrokerCrypto
import BrokerStore

/// Builders shared by the account lifecycle tests.
enum Fixture {
    static let account = "work"

    /// Tokens obtained at `obtainedAt` living `lifetime` seconds (nil: no expires_in).
    static func tokens(
        _ access: String = "access-1", obtainedAt: Double = 1_000, lifetime: Double? = 3_600,
        refresh: String? = "refresh-1"
    ) -> TokenSet {
        TokenSet(
            accessToken: Secret(access), refreshToken: refresh.map { Secret($0) }, scope: "openid",
            expiresAt: lifetime.map { obtainedAt + $0 }, obtainedAt: obtainedAt)
    }

    /// A machine with jitter pinned to `jitterUnit` (0: no jitter, the exact margin).
    static func machine(jitterUnit: Double = 0) -> AccountStateMachine {
        AccountStateMachine(account: account, jitter: .fixed(jitterUnit))
    }

    /// A machine holding `tokens`, restored at `now`.
    static func machine(holding tokens: TokenSet, now: Double, jitterUnit: Double = 0) -> AccountStateMachine {
        var machine = machine(jitterUnit: jitterUnit)
        _ = machine.restored(tokens, now: now)
        return machine
    }

    static func id(_ n: UInt64) -> AccountRequestID { AccountRequestID(n) }
}

extension Array where Element == AccountStateMachine.Action {
    /// The `startRefresh` actions, as (generation, attempt).
    var refreshStarts: [(UInt64, Int)] {
        compactMap {
            if case .startRefresh(_, let generation, let attempt) = $0 { (generation, attempt) } else { nil }
        }
    }

    var wakeUps: [Double] {
        compactMap { if case .scheduleWakeUp(let at) = $0 { at } else { nil } }
    }

    var notifications: [AccountStateMachine.Notification] {
        compactMap { if case .notifyUser(let note) = $0 { note } else { nil } }
    }

    /// The error codes of `fail` actions.
    var failures: [(code: String, to: [AccountRequestID])] {
        compactMap { if case .fail(let error, let to) = $0 { (error.code.rawValue, to) } else { nil } }
    }

    /// The access tokens served and to whom.
    var served: [(token: String, to: [AccountRequestID])] {
        compactMap {
            if case .serveToken(let tokens, let to) = $0 { (tokens.accessToken.revealString(), to) } else { nil }
        }
    }
}
