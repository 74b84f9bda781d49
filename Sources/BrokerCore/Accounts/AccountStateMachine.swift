import BrokerProtocol
import BrokerStore

/// The lifecycle of one account as a pure value: events in, actions out, no I/O and no clock reads.
///
/// ```
/// loggedOut ──login succeeded──▶ active(tokens) ⇄ refreshing(tokens, attempt) ──terminal──▶ loginRequired
///     ▲                                                                                        │
///     └────────────── logout (from any state) ◀── login succeeded ◀── loginStarted ◀──────────┘
/// ```
/// A pending login is kept beside the state (`pendingLogin`), so a valid token is still served while the
/// user logs in again. Each event method takes the wall-clock time (Unix seconds) and returns the
/// `Action`s the owning actor performs, in order.
///
/// Invariants:
/// - At most one refresh is in flight (single-flight): callers that need it park with `waitForRefresh`
///   and are all answered when it completes.
/// - Refreshes start at least `RefreshPolicy.minimumRefreshInterval` apart, whatever callers ask.
/// - `generation` increases on every change that voids in-flight work (logout, security-relevant
///   configuration change, successful login). Slow work carries the generation it started under;
///   a completion with another generation is dropped (its fresh tokens are revoked): this is what makes
///   the actor's re-entrancy at each `await` safe.
/// - The notify hook runs once per terminal failure, never in a loop; nothing retries a terminal failure.
public struct AccountStateMachine: Sendable {
    /// The account's name, used in messages for people ("authctl login NAME").
    public let account: String
    /// One object for every account's machine when the broker makes them (`init(account:settings:jitter:)`):
    /// inline, the policy and backoff were 104 bytes per account (docs/BENCHMARKS-archive.md,
    /// "Memory per account").
    let settings: Settings
    public var policy: RefreshPolicy { settings.policy }
    public var backoff: RefreshBackoff { settings.backoff }
    public internal(set) var state: State = .loggedOut
    // The three below are nil for an account that is signed in and well, which is most of them:
    // out of line, they are 8 bytes each instead of 40 (docs/BENCHMARKS-archive.md,
    // "The ID token out of memory").
    @OutOfLineIfPresent public internal(set) var pendingLogin: PendingLogin? = nil
    public internal(set) var generation: UInt64 = 0
    /// When the last refresh succeeded, for `authctl status`.
    public internal(set) var lastRefreshAt: Double?
    /// The last failure (refresh or login), for `authctl status`; cleared by a success.
    @OutOfLineIfPresent public internal(set) var lastError: WireError? = nil
    /// Set while the current tokens are not in the token store (a failed save, retried with backoff).
    @OutOfLineIfPresent public internal(set) var unsaved: UnsavedTokens? = nil
    var jitter: RefreshJitter
    var waiters: [AccountRequestID] = []
    var lastRefreshStartedAt: Double?

    public init(
        account: String, policy: RefreshPolicy = RefreshPolicy(), backoff: RefreshBackoff = RefreshBackoff(),
        jitter: RefreshJitter
    ) {
        self.init(account: account, settings: Settings(policy: policy, backoff: backoff), jitter: jitter)
    }

    /// A machine whose policy and backoff are `settings`, shared with other machines.
    public init(account: String, settings: Settings, jitter: RefreshJitter) {
        self.account = account
        self.settings = settings
        self.jitter = jitter
    }

    /// The refresh policy and backoff, immutable, for any number of machines to share.
    public final class Settings: Sendable {
        public let policy: RefreshPolicy
        public let backoff: RefreshBackoff

        public init(policy: RefreshPolicy, backoff: RefreshBackoff) {
            self.policy = policy
            self.backoff = backoff
        }
    }

    /// The tokens currently held (possibly expired), if any.
    public var currentTokens: TokenSet? {
        switch state {
        case .active(let tokens, _), .refreshing(let tokens, _): tokens
        case .loggedOut, .loginRequired: nil
        }
    }

    /// Callers parked until the in-flight (or deferred) refresh completes.
    public var waitingRequests: [AccountRequestID] { waiters }

    /// The state shown by `authctl status`: `pending_login` while a login is pending, `error` while
    /// transient failures keep an expired token from being replaced.
    public func wireState(now: Double) -> AccountState {
        if pendingLogin != nil { return .pendingLogin }
        switch state {
        case .loggedOut: return .loggedOut
        case .active: return .active
        case .loginRequired: return .loginRequired
        case .refreshing(let tokens, let attempt):
            if case .scheduled(_, .some) = attempt.phase, !policy.isValid(tokens, at: now) { return .error }
            return .refreshing
        }
    }

    /// When something is due: a proactive refresh, a retry, an expiry to notice, a login deadline.
    var dueAt: Double? {
        let stateDue: Double? =
            switch state {
            case .active(_, let checkAt): checkAt
            case .refreshing(_, let attempt):
                if case .scheduled(let at, _) = attempt.phase { at } else { nil }
            case .loggedOut, .loginRequired: nil
            }
        return [stateDue, pendingLogin?.deadline, saveDueAt].compactMap { $0 }.min()
    }

    /// The time the actor's timer should fire next: the due time (`RefreshBackoff.nextWakeUp`, no cap:
    /// a suspend is counted by the sleep's clock). Nil when nothing is due.
    public func nextWakeUp(now: Double) -> Double? {
        RefreshBackoff.nextWakeUp(due: dueAt, now: now)
    }

    /// Runs `body`, then appends a timer action when it moved the due time (or always, with `force`:
    /// after `timerFired` the actor's timer is spent).
    mutating func rearmingTimer(now: Double, force: Bool = false, _ body: (inout Self) -> [Action]) -> [Action] {
        let before = dueAt
        var actions = body(&self)
        guard force || dueAt != before else { return actions }
        if let wakeUp = nextWakeUp(now: now) {
            actions.append(.scheduleWakeUp(at: wakeUp))
        } else if force || before != nil {
            actions.append(.cancelWakeUp)
        }
        return actions
    }

    /// The answer for a caller that cannot start anything: the current token if valid, else why not.
    func answer(_ id: [AccountRequestID], now: Double) -> Action {
        if let tokens = currentTokens, policy.isValid(tokens, at: now) { return .serveToken(tokens, to: id) }
        return .fail(unavailableError(now: now), to: id)
    }

    /// Answers every parked caller from the current state: after a refresh completes or is voided.
    mutating func settleWaiters(now: Double) -> [Action] {
        guard !waiters.isEmpty else { return [] }
        defer { waiters = [] }
        return [answer(waiters, now: now)]
    }
}
