import BrokerCore
import BrokerHTTP
import BrokerProtocol
import FoundationEssentials
import Synchronization
import WireFormats

/// A `BrokerService` with canned answers that records what the router asked for. Accounts and
/// owners are recorded as "name" for the daemon's own uid and "uid:name" for any other.
final class FakeBrokerService: BrokerService {
    /// Every call as "method(arguments)", in order.
    let calls = Mutex<[String]>([])
    /// When set, every throwing method throws it.
    let failure = Mutex<WireError?>(nil)
    let cachedAccounts: Set<String>
    /// Caller policies by account name (any owner); not recorded in `calls`.
    let policies: [String: CallerPolicy]

    static let token = "fake-access-token-7f3a9c"
    static let grant = TokenGrant(
        accessToken: token, tokenType: "Bearer", expiresAt: "2030-01-01T00:00:00Z", scope: "openid")

    init(cachedAccounts: Set<String> = [], policies: [String: CallerPolicy] = [:]) {
        self.cachedAccounts = cachedAccounts
        self.policies = policies
    }

    func callerPolicy(account: AccountKey) -> CallerPolicy? { policies[account.name] }

    /// This boot's decisions by executable; `awaitCallerApproval` answers `approvalOutcome`.
    let approvalDecisions = Mutex<[String: Bool]>([:])
    let approvalOutcome = Mutex<ApprovalOutcome>(.timedOut)

    func callerApproval(account: AccountKey, executable: String) -> Bool? {
        approvalDecisions.withLock { $0[executable] }
    }

    func awaitCallerApproval(account: AccountKey, executable: String, pid: Int32) async -> ApprovalOutcome {
        try? record("awaitCallerApproval(\(label(account)),\(executable))")
        return approvalOutcome.withLock { $0 }
    }

    func pendingApprovals(owner: UInt32) -> ApprovalList {
        try? record(label("pendingApprovals", owner: owner))
        return ApprovalList(approvals: [])
    }

    func decideApproval(_ decision: ApprovalDecision, owner: UInt32, caller: ChangeRequester) async throws(WireError)
        -> ApprovalResult
    {
        let code = decision.code.map { ",code=\($0)" } ?? ""
        try record(
            "decideApproval(\(label(decision.account, owner: owner)),\(decision.executable ?? "nil"),\(decision.deny)\(code))")
        return ApprovalResult(
            account: decision.account, executable: decision.executable ?? "/x", decision: "approved", released: 0)
    }

    private func record(_ call: String) throws(WireError) {
        calls.withLock { $0.append(call) }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    var recorded: [String] { calls.withLock { $0 } }

    private func label(_ key: AccountKey) -> String { label(key.name, owner: key.owner) }
    private func label(_ text: String, owner: UInt32) -> String {
        owner == RouterFixture.daemonUID ? text : "\(owner):\(text)"
    }

    func status(owner: UInt32) async -> AccountList {
        try? record(label("status", owner: owner))
        return AccountList(accounts: [AccountStatus(name: "work", state: .active, expiresAt: "2030-01-01T00:00:00Z")])
    }

    func accounts(owner: UInt32) async -> AccountList {
        try? record(label("accounts", owner: owner))
        return AccountList(accounts: [])
    }

    func account(_ key: AccountKey) async throws(WireError) -> AccountStatus {
        try record("account(\(label(key)))")
        return AccountStatus(name: key.name, state: .loggedOut)
    }

    func addAccount(_ configuration: AccountConfiguration, owner: UInt32, dryRun: Bool) async throws(WireError) -> AccountStatus {
        try record("addAccount(\(label(configuration.name, owner: owner)),\(configuration.issuer)\(dryRun ? ",dry_run" : ""))")
        return AccountStatus(name: configuration.name, state: .loggedOut)
    }

    func removeAccount(_ key: AccountKey, caller: ChangeRequester) async throws(WireError) {
        try record("removeAccount(\(label(key)))")
    }

    func updateAccount(
        _ configuration: AccountConfiguration, owner: UInt32, confirmation: String?, caller: ChangeRequester,
        keepClientSecret: Bool, dryRun: Bool
    ) async throws(WireError) -> AccountUpdateResult {
        let code =
            (confirmation.map { ",code=\($0)" } ?? "") + (keepClientSecret ? ",keep_client_secret" : "")
            + (dryRun ? ",dry_run" : "")
        try record("updateAccount(\(label(configuration.name, owner: owner)),\(configuration.gitUsername ?? "nil")\(code))")
        return AccountUpdateResult(outcome: .updated, account: AccountStatus(name: configuration.name, state: .active))
    }

    static let idToken = "fake-id-token-51c0e2"

    func tokenRejected(account: AccountKey, accessToken: String) async throws(WireError) -> TokenRejectionResult {
        try record("tokenRejected(\(label(account)),\(accessToken == Self.token ? "current" : "other"))")
        return TokenRejectionResult(refreshScheduled: accessToken == Self.token)
    }

    func idToken(account: AccountKey, minTTL: Double?) async throws(WireError) -> IDTokenGrant {
        try record("idToken(\(label(account)),\(minTTL.map { String(Int($0)) } ?? "nil"))")
        return IDTokenGrant(idToken: Self.idToken, expiresAt: "2030-01-01T00:05:00Z")
    }

    func cachedToken(account: AccountKey, now: Double) -> TokenGrant? {
        calls.withLock { $0.append("cachedToken(\(label(account)))") }
        return cachedAccounts.contains(label(account)) ? Self.grant : nil
    }

    func token(account: AccountKey, minTTL: Double?) async throws(WireError) -> TokenGrant {
        try record("token(\(label(account)),\(minTTL.map { String(Int($0)) } ?? "nil"))")
        return Self.grant
    }

    func refreshedToken(account: AccountKey) async throws(WireError) -> TokenGrant {
        try record("refreshedToken(\(label(account)))")
        return Self.grant
    }

    func narrowedToken(account: AccountKey, narrowing: TokenNarrowing, minTTL: Double?) async throws(WireError)
        -> TokenGrant
    {
        let asked = (narrowing.scopes + narrowing.resources + [narrowing.audience ?? "-"]).joined(separator: ",")
        try record("narrowedToken(\(label(account)),\(asked),\(minTTL.map { String(Int($0)) } ?? "nil"))")
        return Self.grant
    }

    static let proof = "fake-dpop-proof-9be41d"

    func mcpRelay(account: AccountKey, message: MCPRelayMessage) async throws(WireError) -> MCPRelayAnswer {
        try record("mcpRelay(\(label(account)),\(message.method.rawValue),\(message.sessionID ?? "nil"))")
        return MCPRelayAnswer(status: 200, contentType: "application/json", body: message.body)
    }

    func stepUp(account: AccountKey, scopes: [String]) async throws(WireError) -> StepUpResult {
        try record("stepUp(\(label(account)),\(scopes.joined(separator: " ")))")
        return StepUpResult(
            account: account.name, scope: scopes.joined(separator: " "), loginCommand: "authctl login \(account.name)")
    }

    func dpopProof(account: AccountKey, request: DPoPProofRequest) async throws(WireError) -> DPoPProofGrant {
        try record("dpopProof(\(label(account)),\(request.method),\(request.url),\(request.nonce ?? "nil"))")
        return DPoPProofGrant(accessToken: Self.token, tokenType: "DPoP", proof: Self.proof, expiresAt: "2030-01-01T00:00:00Z")
    }

    /// The fast path serves proofs for `cachedAccounts` only, like `cachedToken`.
    static let cachedProof = "fake-cached-dpop-proof-51c0"

    func cachedDPoPProof(account: AccountKey, request: DPoPProofRequest, target: AbsoluteURL, now: Double) -> DPoPProofGrant? {
        calls.withLock {
            $0.append("cachedDPoPProof(\(label(account)),\(request.method),\(request.url),\(request.nonce ?? "nil"))")
        }
        guard cachedAccounts.contains(label(account)) else { return nil }
        return DPoPProofGrant(
            accessToken: Self.token, tokenType: "DPoP", proof: Self.cachedProof, expiresAt: "2030-01-01T00:00:00Z")
    }

    func startLogin(account: AccountKey, request: LoginRequest) async throws(WireError) -> LoginStarted {
        try record("startLogin(\(label(account)),\(request.timeoutSeconds.map(String.init) ?? "nil"))")
        return LoginStarted(
            loginID: "L1", authorizationURL: "https://idp.example/authorize?x=1", expiresAt: "2030-01-01T00:05:00Z")
    }

    func loginStatus(id: String, owner: UInt32, wait: Double) async throws(WireError) -> LoginStatus {
        try record("loginStatus(\(label(id, owner: owner)),\(Int(wait)))")
        return LoginStatus(loginID: id, account: "work", outcome: .succeeded, subject: "alice")
    }

    func discoveryIssuer(url: String, pins: [String]) async throws(WireError) -> DiscoveryResult {
        try record("discoveryIssuer(\(([url] + pins).joined(separator: ",")))")
        return DiscoveryResult(issuer: "https://issuer.example/from-document")
    }

    func loginCallback(url: String, owner: UInt32) async throws(WireError) -> LoginStatus {
        // Records that a URL arrived, never the URL (it holds the code).
        try record("loginCallback(\(owner),\(url.utf8.count) bytes)")
        return LoginStatus(loginID: "L1", account: "work", outcome: .succeeded, subject: "alice")
    }

    func cancelLogin(account: AccountKey) async throws(WireError) -> LoginStatus {
        try record("cancelLogin(\(label(account)))")
        return LoginStatus(loginID: "L1", account: "work", outcome: .failed)
    }

    func logout(account: AccountKey) async throws(WireError) -> LogoutResult {
        try record("logout(\(label(account)))")
        return LogoutResult(revoked: true)
    }

    func rekey() async throws(WireError) -> RekeyResult {
        try record("rekey")
        return RekeyResult(resealed: 3, keyLocation: "/tmp/key")
    }

    func metrics(owner: UInt32) -> String {
        calls.withLock { $0.append(label("metrics", owner: owner)) }
        return "authbroker_tokens_served_total 5\n"
    }
}

/// A router over a fake service, with a fixed clock, a fake executable lookup and captured logs.
struct RouterFixture {
    static let daemonUID: UInt32 = 1000
    let service: FakeBrokerService
    let logs = LogCapture()
    let router: APIRouter

    init(
        cachedAccounts: Set<String> = [], allowedUIDs: Set<UInt32> = [], scope: SocketScope = .main,
        policies: [String: CallerPolicy] = [:], executables: ExecutableLookup = .everyPathNamesTheRunningFile
    ) {
        service = FakeBrokerService(cachedAccounts: cachedAccounts, policies: policies)
        router = APIRouter(
            service: service,
            configuration: .init(
                policy: PeerPolicy(daemonUID: Self.daemonUID, allowedUIDs: allowedUIDs), processID: 4242,
                startedAt: 1_000, scope: scope),
            logger: logs.logger, now: { 1_010 },
            process: {
                ProcessIdentity(executable: "/usr/bin/prog-\($0)", command: "prog (\($0))", startTime: "9\($0)")
            }, executables: executables)
    }

    static func connection(uid: UInt32 = daemonUID, pid: Int32 = 77) -> ConnectionInfo {
        ConnectionInfo(id: 1, peer: .unix(PeerCredentials(pid: pid, uid: uid, gid: 100)))
    }

    func send(
        _ method: String, _ target: String, body: String? = nil, accept: String? = nil,
        connection: ConnectionInfo = connection()
    ) async -> HTTPResponse {
        await router.handle(Self.request(method, target, body: body, accept: accept), connection: connection)
    }

    /// A request as `authctl` would send it.
    static func request(_ method: String, _ target: String, body: String? = nil, accept: String? = nil) -> HTTPRequest {
        var headers = HTTPHeaders([("Host", "localhost")])
        if let accept { headers.add(name: "Accept", value: accept) }
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        return HTTPRequest(method: method, target: target, headers: headers, body: Array((body ?? "").utf8))
    }
}

extension HTTPResponse {
    // `text` comes from MockProviderHarness.swift.
    func decoded<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(body))
    }

    /// The error envelope's error, or nil when the body is not one.
    var wireError: WireError? { try? decoded(ErrorEnvelope.self).error }
}

extension ExecutableLookup {
    /// Every process shares the daemon's namespaces and runs the file its path names (8:1:77):
    /// the file identity never decides, for tests of the rest of the policy.
    static let everyPathNamesTheRunningFile = ExecutableLookup(
        running: { _ in ExecutableFile(file: FileIdentity(device: 0x801, inode: 77), namespace: .home) },
        file: { _ in FileIdentity(device: 0x801, inode: 77) })
}
