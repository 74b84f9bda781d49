import BrokerCore
import BrokerHTTP
import BrokerProtocol
import Foundation
import Synchronization
import TestSupport
import Testing

/// System mode: the real router over the real broker, called with the SO_PEERCRED credentials of
/// two users (and root). Each user's accounts and logins do not exist for the others.
@Suite struct APIRouterOwnershipTests {
    static let (daemon, alice, bob, root): (UInt32, UInt32, UInt32, UInt32) = (900, 1001, 1002, 0)

    @Test func anotherUsersAccountDoesNotExistForTheCaller() async throws {
        let fixture = try await OwnershipFixture()
        defer { fixture.remove() }
        let aliceToken = try await fixture.signIn("work", as: Self.alice)

        for intruder in [Self.bob, Self.root, Self.daemon] {
            #expect(try await fixture.send("GET", "/v1/accounts", as: intruder).decoded(AccountList.self).accounts.isEmpty)
            #expect(try await fixture.send("GET", "/v1/status", as: intruder).decoded(AccountList.self).accounts.isEmpty)
            for (method, target, body) in [
                ("GET", "/v1/accounts/work", nil), ("GET", "/v1/accounts/work/token", nil),
                ("GET", "/v1/accounts/work/token?min_ttl=5", nil), ("GET", "/v1/accounts/work/id_token", nil),
                ("POST", "/v1/accounts/work/token/rejected", #"{"access_token":"\#(aliceToken)"}"#),
                ("POST", "/v1/accounts/work/login", "{}"), ("POST", "/v1/accounts/work/logout", "{}"),
                ("POST", "/v1/accounts/work/dpop-proof", #"{"method":"GET","url":"https://api.example/"}"#),
                ("PUT", "/v1/accounts/work", fixture.configuration("work", owner: intruder, gitUsername: "mallory")),
                ("DELETE", "/v1/accounts/work", nil),
            ] {
                let response = await fixture.send(method, target, body: body, as: intruder)
                #expect(response.status == 404, "\(method) \(target) as uid \(intruder): \(response.text)")
                #expect(response.wireError?.code == .unknownAccount, "\(method) \(target) as uid \(intruder)")
                #expect(!response.text.contains(aliceToken))
            }
            // The synchronous fast path is scoped the same way.
            let fast = fixture.router.handleImmediately(
                RouterFixture.request("GET", "/v1/accounts/work/token"), connection: RouterFixture.connection(uid: intruder))
            #expect(fast == nil || fast?.status == 404)
            #expect(fast.map { !$0.text.contains(aliceToken) } ?? true)
        }
        // Alice's account is untouched by all of that.
        #expect(try await fixture.token("work", as: Self.alice) == aliceToken)
        let shown = try await fixture.send("GET", "/v1/accounts/work", as: Self.alice).decoded(AccountStatus.self)
        #expect(shown.state == .active)
        #expect(shown.configuration?.gitUsername == nil)
        #expect(!fixture.logs.captured.contains { $0.contains("audit:") && !$0.contains("uid=\(Self.alice)") })
    }

    @Test func twoUsersEachHaveTheirOwnAccountOfTheSameName() async throws {
        let fixture = try await OwnershipFixture()
        defer { fixture.remove() }
        let aliceToken = try await fixture.signIn("work", as: Self.alice)
        let bobToken = try await fixture.signIn("work", as: Self.bob)
        #expect(aliceToken != bobToken)
        #expect(try await fixture.token("work", as: Self.alice) == aliceToken)
        #expect(try await fixture.token("work", as: Self.bob) == bobToken)
        // A second account of that name for the same user is still a conflict.
        let again = await fixture.send("POST", "/v1/accounts", body: fixture.configuration("work", owner: Self.bob), as: Self.bob)
        #expect(again.wireError?.code == .conflict)

        let bobMetrics = await fixture.send("GET", "/metrics", as: Self.bob).text
        #expect(bobMetrics.contains("authbroker_accounts{state=\"active\"} 1\n"), "\(bobMetrics)")
        #expect(await fixture.send("GET", "/metrics", as: Self.root).text.contains("authbroker_accounts{state=\"active\"} 0\n"))

        // Bob removes his `work`; Alice's stays, tokens and all.
        #expect(await fixture.send("DELETE", "/v1/accounts/work", as: Self.bob).status == 204)
        #expect(await fixture.send("GET", "/v1/accounts/work/token", as: Self.bob).status == 404)
        #expect(try await fixture.token("work", as: Self.alice) == aliceToken)
        let audits = fixture.logs.captured.filter { $0.contains("audit: token") }
        #expect(audits.contains { $0.contains("uid=\(Self.bob)") && $0.hasSuffix("owner=\(Self.bob)") })
        #expect(
            audits.allSatisfy { line in
                [Self.alice, Self.bob].contains { line.contains("uid=\($0) ") && line.hasSuffix("owner=\($0)") }
            })
        #expect(fixture.logs.captured.contains { $0.contains("account removed account=work owner=\(Self.bob)") })
    }

    @Test func aPendingLoginIsShownAndAnsweredOnlyToItsOwner() async throws {
        let fixture = try await OwnershipFixture(pendingLogins: true)
        defer { fixture.remove() }
        #expect(
            await fixture.send("POST", "/v1/accounts", body: fixture.configuration("work", owner: Self.alice), as: Self.alice)
                .status == 201)
        let started = try await fixture.send("POST", "/v1/accounts/work/login", body: "{}", as: Self.alice)
            .decoded(LoginStarted.self)
        #expect(started.authorizationURL.contains("for=cli-\(Self.alice)"))
        let pending = await fixture.send("GET", "/v1/accounts/work/token", as: Self.alice)
        #expect(pending.wireError?.code == .loginPending)
        #expect(pending.wireError?.authorizationURL == started.authorizationURL)

        for intruder in [Self.bob, Self.root] {
            let status = await fixture.send("GET", "/v1/logins/\(started.loginID)", as: intruder)
            let unknown = await fixture.send("GET", "/v1/logins/no-such-login", as: intruder)
            #expect(status.status == unknown.status)
            #expect(status.wireError?.code == unknown.wireError?.code)
            #expect(!status.text.contains(started.authorizationURL))
            let token = await fixture.send("GET", "/v1/accounts/work/token", as: intruder)
            #expect(token.wireError?.code == .unknownAccount)
            #expect(!token.text.contains(started.authorizationURL))
        }
        // Bob's `authctl login work` is a login of his own `work`, not a way into Alice's.
        #expect(
            await fixture.send("POST", "/v1/accounts", body: fixture.configuration("work", owner: Self.bob), as: Self.bob).status
                == 201)
        let bobs = try await fixture.send("POST", "/v1/accounts/work/login", body: "{}", as: Self.bob)
            .decoded(LoginStarted.self)
        #expect(bobs.loginID != started.loginID)
        #expect(bobs.authorizationURL.contains("for=cli-\(Self.bob)"))
        #expect(
            try await fixture.send("GET", "/v1/logins/\(started.loginID)", as: Self.alice)
                .decoded(LoginStatus.self).outcome == .pending)
    }

    @Test func onlyTheDaemonsOwnUserMayRotateTheKey() async throws {
        let fixture = try await OwnershipFixture()
        defer { fixture.remove() }
        _ = try await fixture.signIn("work", as: Self.alice)
        for caller in [Self.alice, Self.root] {
            let refused = await fixture.send("POST", "/v1/rekey", body: "{}", as: caller)
            #expect(refused.status == 403)
            #expect(refused.wireError?.code == .forbidden)
        }
        #expect(await fixture.send("POST", "/v1/rekey", body: "{}", as: Self.daemon).status == 200)
    }
}

/// A system-mode router (daemon uid 900; 1001, 1002 and root allowed) over a real broker.
struct OwnershipFixture {
    let harness: BrokerHarness
    let broker: TokenBroker
    let router: APIRouter
    var logs: LogCapture { harness.logs }

    init(pendingLogins: Bool = false) async throws {
        harness = try BrokerHarness()
        let issuer = harness.provider.issuer
        let pending: LoginFlowFactory = { @Sendable context in
            BrokerLogin(
                flow: PendingLoginFlow(), authorizationURL: "\(issuer)/authorize?for=\(context.configuration.clientID)")
        }
        broker = try await harness.makeBroker(loginFlows: pendingLogins ? pending : nil)
        let policy = PeerPolicy(
            daemonUID: APIRouterOwnershipTests.daemon,
            allowedUIDs: [APIRouterOwnershipTests.alice, APIRouterOwnershipTests.bob, APIRouterOwnershipTests.root])
        router = APIRouter(
            service: broker, configuration: .init(policy: policy, processID: 4242, startedAt: 1_000),
            logger: harness.logs.logger,
            process: { ProcessIdentity(executable: "/usr/bin/prog-\($0)", command: "prog", startTime: "9\($0)") },
            executables: .everyPathNamesTheRunningFile)
    }

    func send(_ method: String, _ target: String, body: String? = nil, as uid: UInt32) async -> HTTPResponse {
        await router.handle(
            RouterFixture.request(method, target, body: body), connection: RouterFixture.connection(uid: uid, pid: 50))
    }

    /// An account of the fake provider. The client id names `owner`, so a login URL shows whose it is.
    func configuration(_ name: String, owner: UInt32, gitUsername: String? = nil) -> String {
        let git = gitUsername.map { #","git_username":"\#($0)""# } ?? ""
        return #"{"name":"\#(name)","issuer":"\#(harness.provider.issuer)","client_id":"cli-\#(owner)","scopes":[],"#
            + #""extra_parameters":{}\#(git)}"#
    }

    /// Adds `name` as `uid`, logs it in, and returns its access token.
    func signIn(_ name: String, as uid: UInt32) async throws -> String {
        let added = await send("POST", "/v1/accounts", body: configuration(name, owner: uid), as: uid)
        try #require(added.status == 201, "\(added.text)")
        let started = try await send("POST", "/v1/accounts/\(name)/login", body: "{}", as: uid).decoded(LoginStarted.self)
        let done = await eventually {
            (try? await send("GET", "/v1/logins/\(started.loginID)?wait=1", as: uid).decoded(LoginStatus.self).outcome)
                == .succeeded
        }
        try #require(done)
        return try await token(name, as: uid)
    }

    func token(_ name: String, as uid: UInt32) async throws -> String {
        try await send("GET", "/v1/accounts/\(name)/token?min_ttl=1", as: uid).decoded(TokenGrant.self).accessToken
    }

    func remove() { harness.remove() }
}

/// A browser login that stays pending until cancelled (the user never comes back).
final class PendingLoginFlow: LoginFlow {
    let loginID = UUID().uuidString
    let expiresAt = Date().addingTimeInterval(300)
    private let ended = Mutex(false)

    var outcome: Result<LoginResult, OIDCError>? { ended.withLock { $0 } ? .failure(.cancelled) : nil }

    func result() async -> Result<LoginResult, OIDCError> {
        while !ended.withLock({ $0 }), !Task.isCancelled { try? await Task.sleep(for: .milliseconds(10)) }
        return .failure(.cancelled)
    }

    func cancel() { ended.withLock { $0 = true } }
}
