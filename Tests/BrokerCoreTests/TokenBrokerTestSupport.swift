import BrokerCore
import BrokerCrypto
import BrokerHTTP
import BrokerProcesses
import BrokerProtocol
import BrokerStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// An in-process OpenID provider behind the `HTTPTransport` seam: discovery, token endpoint with
/// refresh-token rotation and reuse detection (a reused rotated-out token revokes the family, as real
/// providers do), revocation, and failure injection. Every token value starts with "tok_" so tests can
/// search logs for any of them.
final class FakeProvider: HTTPTransport {
    /// `redirect`: the token endpoint answers 302 (a captive portal or a proxy's login page).
    enum Mode: Sendable { case normal, unavailable, invalidGrant, redirect }

    struct State {
        var lifetime = 100
        var rotate = true
        var mode = Mode.normal
        var tokenDelay: Duration?
        var live: Set<String> = []
        var used: Set<String> = []
        var refreshes = 0
        var familyRevocations = 0
        var revoked: [(hint: String, token: String)] = []
        var issuedAccess: [String] = []
        var issuedRefresh: [String] = []
        var counter = 0
        /// URLs requested by a task that preferred a task executor (a connection thread's).
        var requestsOnAPreferredExecutor: [String] = []
        /// The key its certificate chain carries: a request pinned to other keys fails as
        /// HTTPClient fails it (`TLSFailure.pinMismatch`), one without pins is served.
        var chainKey: [UInt8] = Array(repeating: 1, count: 32)
        var pinnedRequests = 0
        /// The ID token a finished login brings (nil: none, as from a plain OAuth provider).
        var loginIDToken: String?
        /// An OAuth error code answered (400) to a narrowed refresh — one with `resource` or
        /// `audience` — before its refresh token is redeemed (a consent refusal); plain refreshes go on.
        var narrowedRefusal: String?
    }

    let issuer: String
    let state = Mutex(State())

    init(issuer: String = "https://id.example.com") {
        self.issuer = issuer
    }

    func with<T: Sendable>(_ body: (inout State) -> T) -> T { state.withLock { body(&$0) } }

    /// The `index`th access (or refresh) token issued; a test failure, not a crash of the whole
    /// test process, when the provider has not issued that many (e.g. a refresh that timed out).
    func issuedAccess(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(
            with { $0.issuedAccess.dropFirst(index).first }, "no access token #\(index) issued", sourceLocation: sourceLocation)
    }

    func issuedRefresh(_ index: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(
            with { $0.issuedRefresh.dropFirst(index).first }, "no refresh token #\(index) issued", sourceLocation: sourceLocation)
    }

    var metadataJSON: [String: Any] {
        [
            "issuer": issuer, "authorization_endpoint": "\(issuer)/authorize", "token_endpoint": "\(issuer)/token",
            "revocation_endpoint": "\(issuer)/revoke", "end_session_endpoint": "\(issuer)/logout",
            "jwks_uri": "\(issuer)/jwks", "code_challenge_methods_supported": ["S256"],
        ]
    }

    /// Mints an access + refresh token pair, registering the refresh token as live.
    func mint() -> (access: String, refresh: String, lifetime: Int) {
        state.withLock { state in
            state.counter += 1
            let access = "tok_access_\(state.counter)_\(UUID().uuidString)"
            let refresh = "tok_refresh_\(state.counter)_\(UUID().uuidString)"
            state.live.insert(refresh)
            state.issuedAccess.append(access)
            state.issuedRefresh.append(refresh)
            return (access, refresh, state.lifetime)
        }
    }

    /// What a finished login yields.
    func loginTokens(now: Double) -> TokenSet {
        let (access, refresh, lifetime) = mint()
        return TokenSet(
            accessToken: Secret(access), refreshToken: Secret(refresh), idToken: with { $0.loginIDToken }.map { Secret($0) },
            scope: "openid email offline_access", expiresAt: now + Double(lifetime), obtainedAt: now)
    }

    func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPResponse {
        let url = String(request.url.split(separator: "?", maxSplits: 1)[0])
        if withUnsafeCurrentTask(body: { $0?.unownedTaskExecutor != nil }) {
            state.withLock { $0.requestsOnAPreferredExecutor.append(url) }
        }
        guard url.hasPrefix(issuer) else { throw .dnsFailure(host: "elsewhere.example", reason: "Name or service not known") }
        if !request.pins.isEmpty {
            let carried = state.withLock { state in
                state.pinnedRequests += 1
                return request.pins.digests.contains(state.chainKey)
            }
            guard carried else { throw .tls(.pinMismatch(host: "127.0.0.1")) }
        }
        switch url.dropFirst(issuer.count) {
        case "/.well-known/openid-configuration": return Self.json(metadataJSON)
        case "/token": return await token(formFields(request.body))
        case "/revoke":
            let fields = formFields(request.body)
            state.withLock { $0.revoked.append((fields["token_type_hint"] ?? "", fields["token"] ?? "")) }
            return HTTPResponse(status: 200)
        default: return HTTPResponse(status: 404)
        }
    }

    private func token(_ fields: [String: String]) async -> HTTPResponse {
        if let delay = state.withLock({ $0.tokenDelay }) { try? await Task.sleep(for: delay) }
        guard fields["grant_type"] == "refresh_token", let presented = fields["refresh_token"] else {
            return Self.json(["error": "unsupported_grant_type"], status: 400)
        }
        enum Outcome {
            case unavailable, redirected, rejected
            case refused(String)
            case rotated(rotate: Bool)
        }
        let outcome: Outcome = state.withLock { state in
            if let refusal = state.narrowedRefusal, fields["resource"] != nil || fields["audience"] != nil {
                return .refused(refusal)
            }
            switch state.mode {
            case .unavailable: return .unavailable
            case .redirect: return .redirected
            case .invalidGrant: return .rejected
            case .normal: break
            }
            if state.used.contains(presented) {
                state.familyRevocations += 1
                state.live.removeAll()
                return .rejected
            }
            guard state.live.contains(presented) else { return .rejected }
            state.refreshes += 1
            if state.rotate {
                state.live.remove(presented)
                state.used.insert(presented)
            }
            return .rotated(rotate: state.rotate)
        }
        switch outcome {
        case .unavailable:
            return HTTPResponse(status: 503, headers: HTTPHeaders([("Retry-After", "1")]), body: Array("down".utf8))
        case .redirected:
            return HTTPResponse(status: 302, headers: HTTPHeaders([("Location", "http://portal.example/login")]))
        case .rejected:
            return Self.json(["error": "invalid_grant", "error_description": "refresh token is no longer valid"], status: 400)
        case .refused(let code):
            return Self.json(["error": code, "error_description": "the user has not consented to that resource"], status: 400)
        case .rotated(let rotate):
            let (access, refresh, lifetime) = mint()
            if !rotate { state.withLock { _ = $0.live.remove(refresh) } }
            var body: [String: Any] = ["access_token": access, "token_type": "Bearer", "expires_in": lifetime]
            if rotate { body["refresh_token"] = refresh }
            return Self.json(body)
        }
    }

    static func json(_ object: Any, status: Int = 200) -> HTTPResponse {
        let body = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array(body))
    }
}

/// A login that completes at once with tokens minted by the provider (the browser part is the
/// `LoginSession`'s business and tested with it).
final class InstantLoginFlow: LoginFlow {
    let loginID = UUID().uuidString
    let expiresAt: Date
    let tokens: TokenSet

    init(expiresAt: Double, tokens: TokenSet) {
        self.expiresAt = Date(timeIntervalSince1970: expiresAt)
        self.tokens = tokens
    }

    var outcome: Result<LoginResult, OIDCError>? { .success(LoginResult(tokens: tokens)) }
    func result() async -> Result<LoginResult, OIDCError> { .success(LoginResult(tokens: tokens)) }
    func cancel() {}
}

/// Wall clock = real time + an offset the test moves forward. Sleeps last their duration on THIS
/// clock, checked every 10 ms, so a sleeper notices a jump within milliseconds.
final class TestClock: Sendable {
    private let offset = Mutex<Double>(0)

    var now: @Sendable () -> Double { { Date().timeIntervalSince1970 + self.offset.withLock { $0 } } }
    func advance(_ seconds: Double) { offset.withLock { $0 += seconds } }

    var sleep: @Sendable (Duration) async throws -> Void {
        { duration in
            let end = self.now() + Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            repeat {
                try await Task.sleep(for: .milliseconds(10))
            } while self.now() < end
        }
    }
}

/// A state directory, a provider, a clock and captured logs; makes brokers on the same vault file.
struct BrokerHarness {
    let directory: TemporaryDirectory
    let provider = FakeProvider()
    let clock = TestClock()
    let logs = LogCapture()
    var notifyCommand: String?
    /// Where tokens.db lives (default: `directory`), e.g. a small tmpfs the test fills.
    var databaseDirectory: String?
    /// `Options.shutdownDrainTimeout`, when not the default.
    var shutdownDrainTimeout: Double?
    /// The brokers' logger, when not `logs.logger`.
    var logger: Logger?
    /// `Options.tokenWaitTimeout`, when not 10 s.
    var tokenWaitTimeout: Double?
    /// `Options.narrowedRefreshBurst` and `narrowedRefreshesPerMinute`, when not the defaults.
    var narrowedRefreshBudget: (burst: Int, perMinute: Int)?

    init() throws {
        directory = try TemporaryDirectory(prefix: "authbroker-broker")
    }

    var keyPath: String { directory.appending("master.key") }

    /// - Parameter loginFlows: how browser logins start; default: they finish at once with fresh tokens.
    func makeBroker(loginFlows: LoginFlowFactory? = nil) async throws -> TokenBroker {
        let vault = try await openVault {
            try Vault.open(
                databasePath: (databaseDirectory ?? directory.path) + "/tokens.db", keySource: .defaultKeyFile(path: keyPath))
        }
        let provider = provider
        let clock = clock
        var options = TokenBroker.Options(
            notifyCommand: notifyCommand, environment: ["PATH": "/usr/bin:/bin"], hookRunner: HookProcess(),
            loginFlowFactory: loginFlows ?? { context in
                BrokerLogin(
                    flow: InstantLoginFlow(expiresAt: clock.now() + 300, tokens: provider.loginTokens(now: clock.now())),
                    authorizationURL: "\(provider.issuer)/authorize?client_id=\(context.configuration.clientID)")
            })
        options.tokenWaitTimeout = tokenWaitTimeout ?? 10
        if let shutdownDrainTimeout { options.shutdownDrainTimeout = shutdownDrainTimeout }
        if let budget = narrowedRefreshBudget {
            (options.narrowedRefreshBurst, options.narrowedRefreshesPerMinute) = (budget.burst, budget.perMinute)
        }
        let broker = TokenBroker(
            vault: vault, transport: provider, options: options, logger: logger ?? logs.logger, now: clock.now,
            sleep: clock.sleep)
        await broker.start()
        return broker
    }

    /// A broker with "work" logged in whose next refresh hangs at the provider (longer than any
    /// test may take), the clock inside the refresh margin: the next request refreshes first.
    func makeBrokerWithAHangingRefresh() async throws -> TokenBroker {
        let broker = try await makeBroker()
        #expect(try await addAndLogin(broker).outcome == .succeeded)
        provider.with { $0.tokenDelay = .seconds(300) }
        clock.advance(60)
        return broker
    }

    /// Adds "work" and logs it in; returns the login's final status.
    func addAndLogin(
        _ broker: TokenBroker, name: String = "work", clientSecret: String? = nil, pins: [String]? = nil,
        dpop: Bool? = nil, allowNarrowing: Bool? = nil, narrowResources: [String]? = nil, narrowAudiences: [String]? = nil
    ) async throws -> LoginStatus {
        _ = try await broker.addAccount(
            BrokerProtocol.AccountConfiguration(
                name: name, issuer: provider.issuer, clientID: "cli", clientSecret: clientSecret, pinSHA256: pins, dpop: dpop,
                allowNarrowing: allowNarrowing, narrowResources: narrowResources, narrowAudiences: narrowAudiences))
        let started = try await broker.startLogin(account: name, request: LoginRequest())
        var status = try await broker.loginStatus(id: started.loginID, wait: 5)
        for _ in 0..<50 where status.outcome == .pending {
            status = try await broker.loginStatus(id: started.loginID, wait: 1)
        }
        return status
    }

    func remove() { directory.remove() }
}

let testRequester = PeerCredentials(pid: 1, uid: 1000, gid: 1000)

/// What a token request came back with.
enum TokenAnswer: Equatable, Sendable {
    case token(String)
    case error(WireErrorCode)
}

extension TokenBroker {
    /// The token, or the wire error's code. Nonisolated, as the socket API's caller is: a parked
    /// request comes back off the actor, so what a test reads next must already be true then.
    nonisolated func tokenOrCode(_ name: String = "work", minTTL: Double? = nil) async -> TokenAnswer {
        do throws(WireError) {
            return .token(try await token(account: name, minTTL: minTTL).accessToken)
        } catch {
            return .error(error.code)
        }
    }
}

/// Tests of one user's broker name accounts by name alone; these calls make them `testRequester`'s
/// (the owner every socket route would pass for that caller).
extension TokenBroker {
    static func key(_ name: String) -> AccountKey { AccountKey(owner: testRequester.uid, name: name) }

    func status() async -> AccountList { await status(owner: testRequester.uid) }
    func accounts() async -> AccountList { await accounts(owner: testRequester.uid) }
    func account(named name: String) async throws(WireError) -> AccountStatus { try await account(Self.key(name)) }
    func addAccount(_ configuration: BrokerProtocol.AccountConfiguration) async throws(WireError) -> AccountStatus {
        try await addAccount(configuration, owner: testRequester.uid)
    }
    func removeAccount(named name: String) async throws(WireError) { try await removeAccount(Self.key(name)) }
    func updateAccount(
        _ configuration: BrokerProtocol.AccountConfiguration, confirmation: String? = nil,
        caller: ChangeRequester = ChangeRequester(pid: 4242, executable: "/usr/bin/test-caller"),
        keepClientSecret: Bool = false, dryRun: Bool = false
    ) async throws(WireError) -> AccountUpdateResult {
        try await updateAccount(
            configuration, owner: testRequester.uid, confirmation: confirmation, caller: caller,
            keepClientSecret: keepClientSecret, dryRun: dryRun)
    }
    nonisolated func cachedToken(account name: String, now: Double) -> TokenGrant? {
        cachedToken(account: Self.key(name), now: now)
    }
    func token(account name: String, minTTL: Double?) async throws(WireError) -> TokenGrant {
        try await token(account: Self.key(name), minTTL: minTTL)
    }
    func idToken(account name: String, minTTL: Double?) async throws(WireError)
        -> IDTokenGrant
    {
        try await idToken(account: Self.key(name), minTTL: minTTL)
    }
    func tokenRejected(account name: String, accessToken: String) async throws(WireError) -> TokenRejectionResult {
        try await tokenRejected(account: Self.key(name), accessToken: accessToken)
    }
    func startLogin(account name: String, request: LoginRequest) async throws(WireError) -> LoginStarted {
        try await startLogin(account: Self.key(name), request: request)
    }
    func loginStatus(id: String, wait: Double) async throws(WireError) -> LoginStatus {
        try await loginStatus(id: id, owner: testRequester.uid, wait: wait)
    }
    func logout(account name: String) async throws(WireError) -> LogoutResult {
        try await logout(account: Self.key(name))
    }
    nonisolated func metrics() -> String { metrics(owner: testRequester.uid) }
}

/// Opens a vault on a thread of its own. Opening runs the migrations, whose fsyncs can take
/// seconds on a loaded disk: called from an async test they would hold one of the cooperative
/// pool's two threads, and every other test's tasks would stall (docs/DEVELOPING.md).
func openVault(_ open: @escaping @Sendable () throws -> Vault) async throws -> sending Vault {
    final class Box: @unchecked Sendable { var result: Result<Vault, any Error>? }
    let box = Box()
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread {
            box.result = Result { try open() }
            continuation.resume()
        }.start()
    }
    return try box.result!.get()
}
