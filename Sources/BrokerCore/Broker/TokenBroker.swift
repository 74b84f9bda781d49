import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import BrokerStore
import FoundationEssentials
import Synchronization

/// The broker: owns every account's state machine and performs its actions — refreshes, timers,
/// logins, persistence, notifications — and answers the socket API through `BrokerService`.
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
        /// A login's timeout when the request names none, and the largest one accepted.
        public var defaultLoginTimeout: Double = 300
        public var maximumLoginTimeout: Double = 3600
        /// How long a token request may wait for a refresh before it gives up.
        public var tokenWaitTimeout: Double = 30
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

        public init(
            notifyCommand: String? = nil, environment: [String: String] = [:],
            loginFlowFactory: LoginFlowFactory? = Options.loopbackLogins
        ) {
            self.notifyCommand = notifyCommand
            self.environment = environment
            self.loginFlowFactory = loginFlowFactory
        }
    }

    let worker: VaultWorker
    let oidc: OIDCClient
    let options: Options
    let logger: Logger
    nonisolated let now: @Sendable () -> Double
    let sleep: @Sendable (Duration) async throws -> Void
    let notifier: NotifyHook
    nonisolated let cache = TokenCache()
    nonisolated let counters = BrokerMetrics()

    /// Keyed by owner and name: names are unique per owner only.
    var accounts: [AccountKey: AccountRuntime] = [:]
    /// Accounts whose stored configuration cannot be read: listed in `error`, otherwise refused.
    var unreadableAccounts: [AccountKey: UnreadableAccount] = [:]
    var answers = Parking<Result<TokenGrant, WireError>>()
    /// Each account's next wake-up (wall-clock seconds). One scheduler task sleeps until the
    /// earliest: a sleeping task per account cost ≈ 10 KB each with 1,000 accounts.
    var wakeUps: [AccountKey: Double] = [:]
    /// The scheduler task and the deadline it sleeps until.
    var scheduler: (deadline: Double, task: Task<Void, Never>)?
    var logins: [String: LoginRecord] = [:]
    /// Logins being started, so a second `startLogin` for the account joins the first.
    var loginStarts: [AccountKey: Task<Result<LoginStarted, WireError>, Never>] = [:]
    var loginWaits = Parking<LoginStatus>()
    /// Background work (refreshes, revocations, login outcomes), cancelled at shutdown.
    var tasks: [UInt64: Task<Void, Never>] = [:]
    /// The tasks among `tasks` that shutdown lets finish first (token-endpoint calls in flight).
    var drained: Set<UInt64> = []
    var nextNumber: UInt64 = 0
    var isShutDown = false

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
        self.logger = logger
        self.now = now
        self.sleep = sleep
        notifier = NotifyHook(command: options.notifyCommand, environment: options.environment, logger: logger)
    }

    /// Restores every account from the vault: tokens, status and schedules come back, and refreshes
    /// that fell due while the daemon was down start now.
    public func start() async {
        let loaded: [(Account, BrokerStore.TokenSet?, TokenStatus?, Secret?, CachedDocument?, String?)]
        do {
            loaded = try await worker.perform { vault in
                try vault.batch { try vault.accounts().map { account in
                    // Unreadable configuration: listed in error; its tokens stay stored, unread.
                    guard case .success(let configuration) = account.configuration else {
                        return (account, nil, nil, nil, nil, nil)
                    }
                    var problem: String?
                    var tokens: BrokerStore.TokenSet?
                    do { tokens = try vault.loadTokens(accountID: account.id) } catch { problem = "\(error)" }
                    var secret: Secret?
                    do {
                        secret = try vault.clientSecret(for: account)
                    } catch {
                        // Without its secret the account would refresh as a public client, be told
                        // invalid_client and lose its refresh token: keep the tokens stored, unused.
                        (tokens, problem) = (nil, "\(error)")
                    }
                    let metadata = configuration.metadataDocumentURL.flatMap {
                        try? vault.providerMetadata(issuer: configuration.issuer, documentURL: $0)
                    }
                    return (account, tokens, try? vault.status(accountID: account.id), secret, metadata, problem)
                } }
            }
        } catch {
            logger.error("cannot read the accounts from the token store: \(error)")
            return
        }
        // Accounts of one provider share its discovery document: decode each document once.
        var decodedDocuments: [String: ProviderMetadata] = [:]
        for (account, tokens, status, secret, document, problem) in loaded {
            let key = AccountKey(owner: account.ownerUID, name: account.name)
            guard case .success(let configuration) = account.configuration else {
                restoreUnreadable(account)
                continue
            }
            if let problem { logger.with(key).error("cannot restore the tokens: \(problem)") }
            if let json = document?.json, decodedDocuments[json] == nil {
                decodedDocuments[json] = try? JSONDecoder().decode(ProviderMetadata.self, from: Data(json.utf8))
            }
            var runtime = makeRuntime(
                account, configuration: configuration, secret: secret, document: document,
                decoded: document.flatMap { decodedDocuments[$0.json] })
            runtime.subject = status?.subject
            runtime.persistedStatus = status
            runtime.persistedTokens = tokens.map(AccountTokens.init)
            runtime.machine.lastRefreshAt = status?.lastRefreshAt
            if let code = status?.lastErrorCode.flatMap(WireErrorCode.init(rawValue:)) {
                runtime.machine.lastError = WireError(code: code, message: status?.lastErrorMessage ?? "")
            }
            if let problem { runtime.machine.lastError = Self.unreadable(account.name, problem) }
            accounts[key] = runtime
            let restored = tokens.map(AccountTokens.init)
            event(key) { machine, now in machine.restored(restored, now: now) }
        }
        logger.info("broker started", ["accounts": String(accountCount)])
    }

    /// The status error of an account whose sealed values do not open (wrong key, tampered database).
    static func unreadable(_ name: String, _ problem: String) -> WireError {
        WireError(
            code: .internal,
            message: "The stored tokens of '\(name)' cannot be used (\(problem)); they are kept unused. "
                + "Start the daemon with the key they were sealed with, or set the account up again "
                + "(authctl account remove \(name), then add it and log in)")
    }

    /// A graceful stop. Timers and logins end and nothing new starts; refreshes in flight are
    /// drained — awaited for up to `shutdownDrainTimeout`, their answers committed — because with
    /// rotation the provider has already retired the stored refresh token; then the other background
    /// work is cancelled, parked callers are answered, tokens whose save failed get one last try,
    /// queued vault writes finish and the vault closes.
    public func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        scheduler?.task.cancel()
        scheduler = nil
        wakeUps = [:]
        // A login whose code is being exchanged is drained like a refresh: the provider has issued
        // its tokens (and, with rotation, nothing else will do), so they are stored before the exit.
        for record in logins.values where record.outcome == .pending {
            if record.login?.flow.cancelUnlessExchanging() == false, let task = record.task { drained.insert(task) }
        }
        await drainRefreshes()
        for (_, task) in tasks { task.cancel() }
        tasks = [:]
        drained = []
        let stopping = WireError(code: .providerUnavailable, message: "authbroker is shutting down; try again shortly.")
        for id in answers.waitingIDs { answers.deliver(.failure(stopping), to: id) }
        for id in loginWaits.waitingIDs { loginWaits.deliver(LoginStatus(loginID: "", account: "", outcome: .pending), to: id) }
        await saveUnsavedTokens()
        cache.removeAll()
        await worker.stop()
        logger.info("broker stopped")
    }

    /// Waits until every drained task has finished, or `shutdownDrainTimeout` has passed. Not a
    /// task group: it would wait for its children, and awaiting a `Task`'s value ignores
    /// cancellation (an HTTP call runs to its own 30 s timeout), so the bound would not hold.
    private func drainRefreshes() async {
        let pending = drained.compactMap { tasks[$0] }
        guard !pending.isEmpty else { return }
        logger.info("waiting for \(pending.count) token request(s) in flight before stopping")
        let timeout = Duration.milliseconds(Int64(options.shutdownDrainTimeout * 1000))
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let first = FirstAnswer(continuation)
            Task {
                for task in pending { await task.value }
                first.offer(true)
            }
            Task {
                try? await Task.sleep(for: timeout)
                first.offer(false)
            }
        }
        if !finished {
            logger.warning(
                "gave up after \(timeout) waiting for the token endpoint; an answer that comes later is lost")
        }
    }

    /// `decoded`: `document` already decoded (start-up decodes each provider's document once).
    func makeRuntime(
        _ account: Account, configuration: BrokerProtocol.AccountConfiguration, secret: Secret?,
        document: CachedDocument?, decoded: ProviderMetadata? = nil
    ) -> AccountRuntime {
        var metadata: CachedProviderMetadata?
        if let manual = configuration.manualMetadata {
            metadata = CachedProviderMetadata(metadata: manual, documentURL: nil, fetchedAt: Date(timeIntervalSince1970: now()))
        } else if let document, let documentURL = configuration.metadataDocumentURL,
            let decoded = decoded ?? (try? JSONDecoder().decode(ProviderMetadata.self, from: Data(document.json.utf8))),
            decoded.issuer == configuration.issuer
        {
            metadata = CachedProviderMetadata(
                metadata: decoded, documentURL: documentURL, fetchedAt: Date(timeIntervalSince1970: document.fetchedAt))
        }
        let seed = (try? Random.bytes(8)).map { $0.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } } ?? UInt64(account.id)
        let machine = AccountStateMachine(
            account: account.name, policy: options.refreshPolicy, backoff: options.refreshBackoff,
            jitter: RefreshJitter(seed: seed))
        return AccountRuntime(
            id: account.id, owner: account.ownerUID, configuration: configuration,
            client: configuration.clientConfiguration(secret: secret, metadata: metadata?.metadata),
            clientSecret: secret, metadata: metadata, machine: machine)
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
    func fail(_ error: WireError) -> WireError {
        counters.error(error.code)
        return error
    }

    /// Also the answer for another owner's account: to the caller it does not exist.
    func unknownAccount(_ key: AccountKey) -> WireError {
        // Every route that does not know the account answers why it cannot be used instead.
        if let unreadable = unreadableAccounts[key] { return fail(unreadable.error) }
        let shown = AccountName.problem(with: key.name) == nil ? key.name : "NAME"
        return fail(WireError(
            code: .unknownAccount,
            message: "No account named '\(shown)'. Add one with: authctl account add \(shown) --issuer URL --client-id ID"))
    }

    /// Sleeps until the wall-clock time `deadline`, in steps of at most 30 s so a suspend/resume or a
    /// clock change is noticed. Throws when cancelled.
    nonisolated func sleep(until deadline: Double) async throws {
        while true {
            let remaining = deadline - now()
            guard remaining > 0 else { return }
            try await sleep(.milliseconds(Int64(min(remaining, RefreshBackoff.maximumSleep) * 1000) + 1))
        }
    }
}

/// Resumes a continuation with the first value offered; later offers are ignored.
final class FirstAnswer<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = Mutex(continuation) }

    func offer(_ value: Value) {
        let waiting = continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        waiting?.resume(returning: value)
    }
}
