import BrokerHTTP
import BrokerProtocol
import BrokerStore
import FoundationEssentials

/// The broker: owns every account's state machine and performs its actions — refreshes, timers,
/// logins, persistence, notifications — and answers the socket API through `BrokerService`.
/// The bookkeeping is in value types tested without the actor: `AccountRuntime` (one account, its
/// OAuth client derived), `LoginRegistry` (logins by id, joins, waiters, expiry) and
/// `WakeUpSchedule` (the one scheduler deadline). Extensions by responsibility: +Lifecycle,
/// +Actions, +Persistence, +Scheduler, +Refresh, +Metadata, +Tokens, +Login, +Logout, +Accounts,
/// +Update, +Rekey.
///
/// Concurrency: this actor owns all mutable broker state. The vault lives on its own thread
/// (`VaultWorker`); network calls and waits run in tasks that report back to the actor. After every
/// `await` the account's generation (or login id) is checked again, so a result that arrives after a
/// logout or a new login is dropped. New tokens are committed to the vault BEFORE the state machine
/// hears of them, so no caller is ever served a token whose rotated refresh token is not on disk.
/// The token fast path (`cachedToken`) reads a Mutex-protected snapshot and never touches the actor.
public actor TokenBroker: BrokerService {
    /// Daemon-level settings.
    public struct Options: Sendable {
        /// `--notify-command`: run with `/bin/sh -c` when an account needs a login. nil: notify-send
        /// when on PATH with a display, else a log line.
        public var notifyCommand: String?
        /// The environment notify commands inherit (PATH, DISPLAY…), plus the AUTHBROKER_* variables.
        public var environment: [String: String]
        /// Starts the notify command (the daemon's: BrokerProcesses' `HookProcess`); nil starts
        /// nothing, and the log line is the only notification.
        public var hookRunner: (any HookRunner)?
        /// A login's timeout when the request names none, and the largest one accepted.
        public var defaultLoginTimeout: Double = 300
        public var maximumLoginTimeout: Double = 3600
        /// How long a token request may wait for a refresh before it gives up.
        public var tokenWaitTimeout: Double = 30
        /// How long a `--confirm` caller waits for `authctl approve` (`--approval-timeout`, at most
        /// `CallerApproval.maximumWaitSeconds` so authctl's own timeout always outlasts it).
        public var approvalTimeout: Double = Double(CallerApproval.maximumWaitSeconds)
        /// The longest `wait` of a login status long-poll.
        public var maximumLoginWait: Double = 30
        /// At shutdown, how long token-endpoint calls in flight may take to answer (their answers
        /// are committed). Well inside the units' `TimeoutStopSec=15s`, with room for the commits.
        public var shutdownDrainTimeout: Double = 10
        /// Starts browser (loopback redirect) logins; nil refuses them (device logins still work).
        public var loginFlowFactory: LoginFlowFactory?
        public var refreshPolicy = RefreshPolicy()
        public var refreshBackoff = RefreshBackoff()
        public var discoveryPolicy = DiscoveryCachePolicy()
        /// Distinct narrowed refreshes per account: this many back to back (`NarrowedRefreshBudget`)…
        public var narrowedRefreshBurst = 10
        /// …then this many a minute; more are `rate_limited` (429 with Retry-After).
        public var narrowedRefreshesPerMinute = 6

        public init(
            notifyCommand: String? = nil, environment: [String: String] = [:], hookRunner: (any HookRunner)? = nil,
            loginFlowFactory: LoginFlowFactory? = Options.loopbackLogins
        ) {
            self.notifyCommand = notifyCommand
            self.environment = environment
            self.hookRunner = hookRunner
            self.loginFlowFactory = loginFlowFactory
        }
    }

    let worker: VaultWorker
    let oidc: OIDCClient
    let options: Options
    /// `options`' refresh policy and backoff, one object shared by every account's state machine.
    let refreshSettings: AccountStateMachine.Settings
    let logger: Logger
    nonisolated let now: @Sendable () -> Double
    let sleep: @Sendable (Duration) async throws -> Void
    nonisolated let notifier: NotifyHook
    nonisolated let cache = TokenCache()
    /// Each account's `--allow-exe` policy, for the router's check before serving (fast path too).
    nonisolated let callerPolicies = CallerPolicyTable()
    /// This boot's `--confirm` decisions and the requests waiting for one.
    nonisolated let approvals = CallerApprovals()
    /// Codes sent for caller-policy changes (`updateAccount`).
    nonisolated let policyConfirmations = PolicyChangeConfirmations()
    nonisolated let counters = BrokerMetrics()
    /// Scopes resource servers asked for (step-up), added to each account's next login.
    nonisolated let stepUps = StepUpRequests()
    /// The MCP relay reports a 401 as a rejected token at most once a minute per account: a
    /// resource answering 401 to everything must not buy a refresh per message (hostile review).
    nonisolated let relayRejections = AccountThrottle(interval: .seconds(60))

    /// Keyed by owner and name: names are unique per owner only.
    var accounts: [AccountKey: AccountRuntime] = [:]
    /// Accounts whose stored configuration cannot be read: listed in `error`, otherwise refused.
    var unreadableAccounts: [AccountKey: UnreadableAccount] = [:]
    nonisolated let answers = Parking<Result<TokenGrant, WireError>>()
    /// When each parked token request gives up, and the one task that sleeps until the earliest.
    var parkedDeadlines = ParkedDeadlines()
    var parkedWatchdog: Task<Void, Never>?
    var wakeUps = WakeUpSchedule()
    /// Narrowed tokens per key (memory only), and the per-account lease every refresh takes.
    var narrowed = NarrowedTokenCache()
    var refreshLeases = RefreshLeases()
    /// How many narrowed refreshes each account may still start (set from `options` in `init`).
    var narrowedBudget = NarrowedRefreshBudget()
    /// Accounts whose login's tokens are being committed: a refresh answer arriving meanwhile is
    /// dropped, not committed after them (`refresh`).
    var committingLogins: Set<AccountKey> = []
    /// The task that sleeps until `wakeUps.deadline`.
    var scheduler: Task<Void, Never>?
    var logins = LoginRegistry()
    let loginWaits = Parking<LoginStatus>()
    /// Background work (refreshes, revocations, login outcomes), cancelled at shutdown.
    var tasks: [UInt64: Task<Void, Never>] = [:]
    /// The tasks among `tasks` that shutdown lets finish first (token-endpoint calls in flight).
    var drained: Set<UInt64> = []
    var nextNumber: UInt64 = 0
    var isShutDown = false
    /// `oidc` with an account's pins (`oidcClient(for:)`), one per set of pins so their JWKS caches last.
    var pinnedOIDC: [PublicKeyPins: OIDCClient] = [:]

    /// `vault` is handed over: from now on only the broker's vault thread uses it.
    public init(
        vault: sending Vault, transport: any HTTPTransport, options: Options, logger: Logger,
        now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        worker = VaultWorker(vault: vault)
        let clock = ContinuousClock()
        let origin = clock.now
        let time = OIDCTime(
            now: { Date(timeIntervalSince1970: now()) }, elapsed: { origin.duration(to: clock.now) }, sleep: sleep)
        oidc = OIDCClient(transport: TimedTransport(base: transport), time: time, discoveryPolicy: options.discoveryPolicy)
        self.options = options
        narrowedBudget = NarrowedRefreshBudget(burst: options.narrowedRefreshBurst, perMinute: options.narrowedRefreshesPerMinute)
        refreshSettings = AccountStateMachine.Settings(policy: options.refreshPolicy, backoff: options.refreshBackoff)
        self.logger = logger
        self.now = now
        self.sleep = sleep
        notifier = NotifyHook(
            command: options.notifyCommand, environment: options.environment, logger: logger, runner: options.hookRunner)
    }

    /// The engine for an account: the shared one, or one whose every request carries the
    /// account's `--pin-sha256` keys (discovery, JWKS, token, revocation, userinfo, device).
    func oidcClient(for configuration: AccountConfiguration) -> OIDCClient {
        let pins = configuration.publicKeyPins
        if pins.isEmpty { return oidc }
        if let pinned = pinnedOIDC[pins] { return pinned }
        let pinned = oidc.pinned(pins)
        pinnedOIDC[pins] = pinned
        return pinned
    }

    /// A fresh number for requests, timers and tasks.
    func number() -> UInt64 {
        nextNumber &+= 1
        return nextNumber
    }

    /// Runs `body` as tracked background work: cancelled at shutdown, or with `drain`, awaited
    /// first (bounded) — for token-endpoint calls, whose answers must be committed.
    @discardableResult
    func background(drain: Bool = false, _ body: @escaping @Sendable (isolated TokenBroker) async -> Void) -> UInt64? {
        guard !isShutDown else { return nil }
        let id = number()
        if drain { drained.insert(id) }
        tasks[id] = Task {
            await body(self)
            self.tasks[id] = nil
            self.drained.remove(id)
        }
        return id
    }

    /// Records `error` in the metrics and returns it, for `throw fail(...)`.
    nonisolated func fail(_ error: WireError) -> WireError {
        counters.error(error.code)
        return error
    }

    /// Also the answer for another owner's account: to the caller it does not exist.
    func unknownAccount(_ key: AccountKey) -> WireError {
        // Every route that does not know the account answers why it cannot be used instead.
        if let unreadable = unreadableAccounts[key] { return fail(unreadable.error) }
        let shown = AccountName.problem(with: key.name) == nil ? key.name : "NAME"
        return fail(
            WireError(
                code: .unknownAccount,
                message: "No account named '\(shown)'. Add one with: authctl account add \(shown) --issuer URL --client-id ID"))
    }

    /// Sleeps until the wall-clock time `deadline` (one sleep on the injected clock, which counts
    /// suspended time; see `RefreshBackoff.nextWakeUp`), then checks the wall clock again in case it
    /// was set back meanwhile. Throws when cancelled.
    nonisolated func sleep(until deadline: Double) async throws {
        while true {
            let remaining = deadline - now()
            guard remaining > 0 else { return }
            try await sleep(.milliseconds(Int64(min(remaining, Self.longestSleep) * 1000) + 1))
        }
    }

    /// Keeps the millisecond count far from overflow for a deadline decades away.
    static let longestSleep: Double = 365 * 86_400
}
