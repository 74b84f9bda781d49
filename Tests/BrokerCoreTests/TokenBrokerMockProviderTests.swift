import BrokerCore
import BrokerHTTP
import BrokerProtocol
import Foundation
import MockProvider
import TestSupport
import Testing

import class BrokerStore.Vault

/// The broker over real sockets against the in-process mock provider: discovery, a browser login
/// through `LoginSession` (the test plays the browser), refresh with rotation and ID-token checks,
/// logout with revocation. Plus the edge checks of account configuration.
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerMockProviderTests {
    /// The mock provider with 100-second access tokens (refreshed after about 60 s).
    static func provider() throws -> MockProvider {
        var knobs = MockProviderConfiguration()
        knobs.accessTokenLifetime = 100
        return try MockProvider(configuration: knobs)
    }

    /// A broker on a fresh vault, talking to `provider` over real sockets, on a test clock.
    static func makeBroker(
        _ provider: MockProvider, in directory: TemporaryDirectory, clock: TestClock, logs: LogCapture
    ) async throws -> TokenBroker {
        let vault = try await openVault {
            try Vault.open(
                databasePath: directory.appending("tokens.db"), keySource: .defaultKeyFile(path: directory.appending("key")))
        }
        let broker = TokenBroker(
            vault: vault, transport: try MockProviderHarness.httpClient(), options: TokenBroker.Options(),
            logger: logs.logger, now: clock.now, sleep: clock.sleep)
        await broker.start()
        _ = try await broker.addAccount(
            AccountConfiguration(
                name: "mock", issuer: provider.issuer, clientID: "mock-client", scopes: ["openid", "email", "offline_access"]))
        return broker
    }

    /// Plays the browser through a started login: authorize, then the redirect to the listener.
    static func completeLogin(_ started: LoginStarted, on broker: TokenBroker) async throws -> LoginStatus {
        let browser = try MockProviderHarness.httpClient(pooled: false)
        let redirect = try await browser.send(HTTPClientRequest(url: started.authorizationURL))
        try #require(redirect.status == 302)
        let page = try await browser.send(HTTPClientRequest(url: try #require(redirect.headers["Location"])))
        #expect(page.status == 200)
        return try await broker.loginStatus(id: started.loginID, wait: 10)
    }

    @Test func browserLoginRefreshAndLogoutAgainstTheMockProvider() async throws {
        let provider = try Self.provider()
        let directory = try TemporaryDirectory(prefix: "authbroker-broker-mock")
        defer { directory.remove() }
        let clock = TestClock()
        let logs = LogCapture()
        let broker = try await Self.makeBroker(provider, in: directory, clock: clock, logs: logs)

        let started = try await broker.startLogin(account: "mock", request: LoginRequest(timeoutSeconds: 60))
        let joined = try await broker.startLogin(account: "mock", request: LoginRequest())
        #expect(joined.loginID == started.loginID && joined.authorizationURL == started.authorizationURL)
        #expect(await broker.tokenOrCode("mock") == .error(.loginPending))

        let status = try await Self.completeLogin(started, on: broker)
        #expect(status.outcome == .succeeded && status.subject == "mock-user")
        guard case .token(let first) = await broker.tokenOrCode("mock") else {
            Issue.record("no token after login")
            return
        }

        clock.advance(60)
        #expect(await eventually { provider.stats.refreshes == 1 })
        #expect(await eventually { await broker.tokenOrCode("mock") != .token(first) })
        #expect(provider.stats.familyRevocations == 0)
        #expect(try await broker.account(named: "mock").subject == "mock-user")

        let logout = try await broker.logout(account: "mock")
        #expect(logout.revoked && logout.revocationNote == nil)
        #expect(provider.stats.revokedHints == ["refresh_token", "access_token"])
        #expect(logout.endSessionURL?.hasPrefix(provider.url("end_session")) == true)
        #expect(await broker.tokenOrCode("mock") == .error(.loginRequired))
        await broker.shutdown()
        await provider.stop()
        #expect(!logs.captured.contains { $0.contains(first) })
    }

    /// Backs docs/security.md "ID token validation": "Every ID token (from the login and from
    /// refreshes that return one) must pass". A refresh answer whose ID token is refused is not
    /// served: the account needs a login, and its last error names the ID token.
    @Test(arguments: [IDTokenDefect.badSignature, .wrongAudience, .changedSubject])
    func aRefreshWhoseIDTokenFailsValidationIsRefused(_ defect: IDTokenDefect) async throws {
        let provider = try Self.provider()
        let directory = try TemporaryDirectory(prefix: "authbroker-broker-idtoken")
        defer { directory.remove() }
        let clock = TestClock()
        let broker = try await Self.makeBroker(provider, in: directory, clock: clock, logs: LogCapture())
        let started = try await broker.startLogin(account: "mock", request: LoginRequest(timeoutSeconds: 60))
        #expect(try await Self.completeLogin(started, on: broker).outcome == .succeeded)
        #expect(await broker.tokenOrCode("mock") != .error(.loginRequired))

        provider.configure { $0.idTokenDefect = defect }
        clock.advance(60)
        #expect(await eventually { provider.stats.refreshes == 1 })
        #expect(await eventually { await broker.tokenOrCode("mock") == .error(.loginRequired) })
        let account = try await broker.account(named: "mock")
        #expect(account.state == .loginRequired)
        #expect(account.lastError?.message.contains("ID token refused") == true, "\(String(describing: account.lastError))")
        await broker.shutdown()
        await provider.stop()
    }

    /// Backs docs/security.md "Loopback redirect listener": "closed when it ends (… logout)".
    /// A logout while the browser login is pending ends it, and its redirect port then refuses
    /// connections (polled: the listener stops a moment after the end is reported).
    @Test func logoutDuringAPendingLoginClosesTheRedirectListener() async throws {
        let provider = try Self.provider()
        let directory = try TemporaryDirectory(prefix: "authbroker-broker-logout")
        defer { directory.remove() }
        let broker = try await Self.makeBroker(provider, in: directory, clock: TestClock(), logs: LogCapture())
        let started = try await broker.startLogin(account: "mock", request: LoginRequest(timeoutSeconds: 60))
        let redirect = try #require(queryFields(started.authorizationURL).first { $0.name == "redirect_uri" }?.value)
        let port = try #require(redirect.split(separator: ":").last?.split(separator: "/").first.flatMap { Int($0) })
        close(try LoginSessionTests.connect(port: port))

        _ = try await broker.logout(account: "mock")
        #expect(try await broker.loginStatus(id: started.loginID, wait: 10).outcome == .failed)
        // The broker reports the cancelled login before the session's listener has stopped (the
        // stop runs in a task of its own), so the port is polled until it refuses.
        #expect(
            await eventually {
                (try? LoginSessionTests.connect(port: port)).map {
                    close($0)
                    return false
                } ?? true
            })
        await broker.shutdown()
        await provider.stop()
    }

    @Test func discoveryFailureIsAnInvalidRequestWithTheReason() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        do throws(WireError) {
            _ = try await broker.addAccount(AccountConfiguration(name: "x", issuer: "https://elsewhere.example", clientID: "c"))
            Issue.record("an undiscoverable issuer was accepted")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.message.contains("cannot resolve elsewhere.example"))
            #expect(!error.message.contains("\n"))
        }
        #expect(await broker.accounts().accounts.isEmpty)
        await broker.shutdown()
    }

    @Test func accountConfigurationIsCheckedAtTheEdge() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        let issuer = harness.provider.issuer
        let refused: [(AccountConfiguration, String)] = [
            (AccountConfiguration(name: "-bad", issuer: issuer, clientID: "c"), "account name"),
            (AccountConfiguration(name: "a", issuer: "http://id.example.com", clientID: "c"), "https"),
            (AccountConfiguration(name: "a", issuer: issuer, clientID: ""), "client id"),
            (AccountConfiguration(name: "a", issuer: issuer, clientID: "c", redirectHost: "example.com"), "redirect host"),
            (AccountConfiguration(name: "a", issuer: issuer, clientID: "c", redirectPort: 70000), "redirect port"),
            (AccountConfiguration(name: "a", issuer: issuer, clientID: "c", redirectPath: "cb"), "redirect path"),
            (AccountConfiguration(name: "a", issuer: issuer, clientID: "c", extraParameters: ["state": "x"]), "'state'"),
            (
                AccountConfiguration(
                    name: "a", issuer: issuer, clientID: "c", endpoints: ManualEndpoints(token: "\(issuer)/token")),
                "--authorization-endpoint"
            ),
        ]
        await broker.expectRefused(refused)
        let added = try await broker.addAccount(
            AccountConfiguration(
                name: "work", issuer: issuer, clientID: "c", clientSecret: "s3cret-value", redirectHost: "localhost",
                extraParameters: ["prompt": "consent"]))
        #expect(added.state == .loggedOut && added.configuration?.clientSecret == nil)
        #expect(added.configuration?.scopes == ["openid"])
        await #expect(throws: WireError.self) {
            try await broker.addAccount(AccountConfiguration(name: "work", issuer: issuer, clientID: "c"))
        }
        do throws(WireError) {
            _ = try await broker.token(account: "nope", minTTL: nil)
        } catch {
            #expect(error.code == .unknownAccount && error.message.contains("authctl account add nope --issuer"))
        }
        // The configuration (not the secret) survives a restart.
        await broker.shutdown()
        let restarted = try await harness.makeBroker()
        let shown = try await restarted.account(named: "work")
        #expect(shown.configuration?.redirectHost == "localhost" && shown.configuration?.extraParameters == ["prompt": "consent"])
        #expect(shown.configuration?.clientSecret == nil)
        try await restarted.removeAccount(named: "work")
        #expect(await restarted.accounts().accounts.isEmpty)
        await restarted.shutdown()
    }

    @Test func rekeyRotatesTheKeyFileAndTokensSurvive() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        _ = try await harness.addAndLogin(broker)
        let before = try String(contentsOfFile: harness.keyPath, encoding: .utf8)
        let result = try await broker.rekey()
        #expect(result.keyLocation == harness.keyPath && result.resealed == 2)
        #expect(try String(contentsOfFile: harness.keyPath, encoding: .utf8) != before)
        await broker.shutdown()
        let restarted = try await harness.makeBroker()
        let access = try harness.provider.issuedAccess(0)
        #expect(await restarted.tokenOrCode() == .token(access))
        await restarted.shutdown()
    }
}
