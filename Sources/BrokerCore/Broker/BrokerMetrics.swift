import BrokerProtocol
import Synchronization

/// Counters for `GET /metrics`, readable without the actor (Prometheus text exposition 0.0.4).
/// Labels are fixed words and account states, never account data or secrets. The account gauge is
/// rendered for one owner (the caller); the counters are daemon-wide totals without names.
final class BrokerMetrics: Sendable {
    enum RefreshOutcome: String, CaseIterable { case success, transient, terminal }
    enum LoginOutcome: String, CaseIterable {
        case succeeded, failed
        case timedOut = "timed_out"
        case cancelled
    }

    private struct Counts {
        var refreshes: [RefreshOutcome: Int] = [:]
        var tokensServed = 0
        var idTokensServed = 0
        var rejections: [Bool: Int] = [:]
        var logins: [LoginOutcome: Int] = [:]
        var errors: [WireErrorCode: Int] = [:]
        /// Accounts per owner and state. Counts, not a state per account: a dictionary slot per
        /// account was 51 kB with 1,000 (docs/BENCHMARKS-archive.md, "The ID token out of
        /// memory"); each account's runtime remembers the state it last reported (`AccountRuntime.reportedState`).
        var states: [OwnerState: Int] = [:]
        var narrowedKeys: [AccountKey: Int] = [:]
        var narrowedRefreshes = 0
    }

    private let counts = Mutex(Counts())

    func refresh(_ outcome: RefreshOutcome) { counts.withLock { $0.refreshes[outcome, default: 0] += 1 } }
    func tokensServed(_ count: Int) { counts.withLock { $0.tokensServed += count } }
    func idTokensServed(_ count: Int) { counts.withLock { $0.idTokensServed += count } }
    /// A client reported the access token as rejected; `refreshScheduled` when it was the current one.
    func tokenRejected(refreshScheduled: Bool) { counts.withLock { $0.rejections[refreshScheduled, default: 0] += 1 } }
    func login(_ outcome: LoginOutcome) { counts.withLock { $0.logins[outcome, default: 0] += 1 } }
    func error(_ code: WireErrorCode) { counts.withLock { $0.errors[code, default: 0] += 1 } }
    struct OwnerState: Hashable {
        var owner: UInt32
        var state: AccountState
    }

    /// An account of `owner` went from `old` to `new` (nil: it did not exist / no longer does).
    func state(_ new: AccountState?, replacing old: AccountState?, owner: UInt32) {
        guard new != old else { return }
        counts.withLock { counts in
            if let old {
                let key = OwnerState(owner: owner, state: old)
                let left = (counts.states[key] ?? 0) - 1
                counts.states[key] = left > 0 ? left : nil
            }
            if let new { counts.states[OwnerState(owner: owner, state: new), default: 0] += 1 }
        }
    }
    /// How many narrowed tokens `account` has cached now (0 forgets the account).
    func narrowedKeys(_ count: Int, account: AccountKey) {
        counts.withLock { $0.narrowedKeys[account] = count == 0 ? nil : count }
    }
    func narrowedRefresh() { counts.withLock { $0.narrowedRefreshes += 1 } }

    /// The exposition text for `owner`; `cacheHits` are the tokens served by the fast path.
    func render(owner: UInt32, cacheHits: Int) -> String {
        let counts = counts.withLock { $0 }
        var text = ""
        func family(_ name: String, _ help: String, _ type: String = "counter") {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        family("authbroker_refreshes_total", "Token refreshes by outcome.")
        for outcome in RefreshOutcome.allCases {
            text += "authbroker_refreshes_total{outcome=\"\(outcome.rawValue)\"} \(counts.refreshes[outcome] ?? 0)\n"
        }
        family("authbroker_tokens_served_total", "Access tokens handed to clients.")
        text += "authbroker_tokens_served_total \(counts.tokensServed + cacheHits)\n"
        family("authbroker_id_tokens_served_total", "ID tokens handed to clients.")
        text += "authbroker_id_tokens_served_total \(counts.idTokensServed)\n"
        family("authbroker_token_rejections_total", "Access tokens reported as rejected by a resource server.")
        for (outcome, scheduled) in [("refresh_scheduled", true), ("stale", false)] {
            text += "authbroker_token_rejections_total{outcome=\"\(outcome)\"} \(counts.rejections[scheduled] ?? 0)\n"
        }
        family("authbroker_logins_total", "Logins by outcome.")
        for outcome in LoginOutcome.allCases {
            text += "authbroker_logins_total{outcome=\"\(outcome.rawValue)\"} \(counts.logins[outcome] ?? 0)\n"
        }
        family("authbroker_errors_total", "Errors answered to clients by code.")
        for code in WireErrorCode.allCases {
            text += "authbroker_errors_total{code=\"\(code.rawValue)\"} \(counts.errors[code] ?? 0)\n"
        }
        family("authbroker_accounts", "Accounts by state.", "gauge")
        for state in AccountState.allCases {
            let count = counts.states[OwnerState(owner: owner, state: state)] ?? 0
            text += "authbroker_accounts{state=\"\(state.rawValue)\"} \(count)\n"
        }
        family("authbroker_narrowed_refreshes_total", "Refreshes that minted a narrowed token (scope, resource, audience).")
        text += "authbroker_narrowed_refreshes_total \(counts.narrowedRefreshes)\n"
        family("authbroker_narrowed_tokens", "Narrowed tokens cached in memory, one per key asked for.", "gauge")
        text += "authbroker_narrowed_tokens \(counts.narrowedKeys.filter { $0.key.owner == owner }.values.reduce(0, +))\n"
        return text
    }
}
