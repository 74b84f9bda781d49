import BrokerCore
import BrokerHTTP
import BrokerProtocol
import FoundationEssentials
import Synchronization

/// A `BrokerService` with canned answers that records what the router asked for.
final class FakeBrokerService: BrokerService {
    /// Every call as "method(arguments)", in order.
    let calls = Mutex<[String]>([])
    /// When set, every throwing method throws it.
    let failure = Mutex<WireError?>(nil)
    let cachedAccounts: Set<String>

    static let token = "fake-access-token-7f3a9c"
    static let grant = TokenGrant(
        accessToken: token, tokenType: "Bearer", expiresAt: "2030-01-01T00:00:00Z", scope: "openid")

    init(cachedAccounts: Set<String> = []) {
        self.cachedAccounts = cachedAccounts
    }

    private func record(_ call: String) throws(WireError) {
        calls.withLock { $0.append(call) }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    var recorded: [String] { calls.withLock { $0 } }

    func status() async -> AccountList {
        try? record("status")
        return AccountList(accounts: [AccountStatus(name: "work", state: .active, expiresAt: "2030-01-01T00:00:00Z")])
    }

    func accounts() async -> AccountList {
        try? record("accounts")
        return AccountList(accounts: [])
    }

    func account(named name: String) async throws(WireError) -> AccountStatus {
        try record("account(\(name))")
        return AccountStatus(name: name, state: .loggedOut)
    }

    func addAccount(_ configuration: AccountConfiguration) async throws(WireError) -> AccountStatus {
        try record("addAccount(\(configuration.name),\(configuration.issuer))")
        return AccountStatus(name: configuration.name, state: .loggedOut)
    }

    func removeAccount(named name: String) async throws(WireError) {
        try record("removeAccount(\(name))")
    }

    func updateAccount(_ configuration: AccountConfiguration) async throws(WireError) -> AccountUpdateResult {
        try record("updateAccount(\(configuration.name),\(configuration.gitUsername ?? "nil"))")
        return AccountUpdateResult(outcome: .updated, account: AccountStatus(name: configuration.name, state: .active))
    }

    static let idToken = "fake-id-token-51c0e2"

    func tokenRejected(account: String, accessToken: String) async throws(WireError) -> TokenRejectionResult {
        try record("tokenRejected(\(account),\(accessToken == Self.token ? "current" : "other"))")
        return TokenRejectionResult(refreshScheduled: accessToken == Self.token)
    }

    func idToken(account: String, minTTL: Double?, requester: PeerCredentials) async throws(WireError) -> IDTokenGrant {
        try record("idToken(\(account),\(minTTL.map { String(Int($0)) } ?? "nil"),pid=\(requester.pid))")
        return IDTokenGrant(idToken: Self.idToken, expiresAt: "2030-01-01T00:05:00Z")
    }

    func cachedToken(account: String, now: Double) -> TokenGrant? {
        calls.withLock { $0.append("cachedToken(\(account))") }
        return cachedAccounts.contains(account) ? Self.grant : nil
    }

    func token(account: String, minTTL: Double?, requester: PeerCredentials) async throws(WireError) -> TokenGrant {
        try record("token(\(account),\(minTTL.map { String(Int($0)) } ?? "nil"),pid=\(requester.pid))")
        return Self.grant
    }

    func startLogin(account: String, request: LoginRequest) async throws(WireError) -> LoginStarted {
        try record("startLogin(\(account),\(request.timeoutSeconds.map(String.init) ?? "nil"))")
        return LoginStarted(loginID: "L1", authorizationURL: "https://idp.example/authorize?x=1", expiresAt: "2030-01-01T00:05:00Z")
    }

    func loginStatus(id: String, wait: Double) async throws(WireError) -> LoginStatus {
        try record("loginStatus(\(id),\(Int(wait)))")
        return LoginStatus(loginID: id, account: "work", outcome: .succeeded, subject: "alice")
    }

    func logout(account: String) async throws(WireError) -> LogoutResult {
        try record("logout(\(account))")
        return LogoutResult(revoked: true)
    }

    func rekey() async throws(WireError) -> RekeyResult {
        try record("rekey")
        return RekeyResult(resealed: 3, keyLocation: "/tmp/key")
    }

    func metrics() -> String {
        calls.withLock { $0.append("metrics") }
        return "authbroker_tokens_served_total 5\n"
    }
}

/// A router over a fake service, with a fixed clock, a fake executable lookup and captured logs.
struct RouterFixture {
    static let daemonUID: UInt32 = 1000
    let service: FakeBrokerService
    let logs = LogCapture()
    let router: APIRouter

    init(cachedAccounts: Set<String> = [], allowedUIDs: Set<UInt32> = []) {
        service = FakeBrokerService(cachedAccounts: cachedAccounts)
        router = APIRouter(
            service: service,
            configuration: .init(
                policy: PeerPolicy(daemonUID: Self.daemonUID, allowedUIDs: allowedUIDs), processID: 4242,
                startedAt: 1_000),
            logger: logs.logger, now: { 1_010 }, process: {
                ProcessIdentity(executable: "/usr/bin/prog-\($0)", command: "prog (\($0))", startTime: "9\($0)")
            })
    }

    static func connection(uid: UInt32 = daemonUID, pid: Int32 = 77) -> ConnectionInfo {
        ConnectionInfo(id: 1, peer: .unix(PeerCredentials(pid: pid, uid: uid, gid: 100)))
    }

    func send(
        _ method: String, _ target: String, body: String? = nil, accept: String? = nil,
        connection: ConnectionInfo = connection()
    ) async -> HTTPResponse {
        var headers = HTTPHeaders([("Host", "localhost")])
        if let accept { headers.add(name: "Accept", value: accept) }
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        let request = HTTPRequest(method: method, target: target, headers: headers, body: Array((body ?? "").utf8))
        return await router.handle(request, connection: connection)
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
