import BrokerCore
import BrokerHTTP
import BrokerProtocol
import Foundation
import MockProvider
import TestSupport
import Testing
import WireFormats

import class BrokerStore.Vault

/// A broker over real sockets against the in-process mock provider, logged in as "work".
struct MockBrokerFixture {
    let provider: MockProvider
    let directory: TemporaryDirectory
    let clock = TestClock()
    let logs = LogCapture()
    let broker: TokenBroker

    static let scopes = ["openid", "email", "offline_access"]

    static func loggedIn(_ knobs: MockProviderConfiguration = MockProviderConfiguration()) async throws -> MockBrokerFixture {
        let provider = try MockProvider(configuration: knobs)
        let directory = try TemporaryDirectory(prefix: "authbroker-update")
        let fixture = try await MockBrokerFixture(provider: provider, directory: directory)
        _ = try await fixture.broker.addAccount(fixture.configuration())
        let started = try await fixture.broker.startLogin(account: "work", request: LoginRequest(timeoutSeconds: 60))
        let redirect = try await browserGet(started.authorizationURL)
        try #require(redirect.status == 302)
        _ = try await browserGet(try #require(redirect.headers["Location"]))
        let status = try await fixture.broker.loginStatus(id: started.loginID, wait: 10)
        try #require(status.outcome == .succeeded, "\(String(describing: status.error))")
        return fixture
    }

    private init(provider: MockProvider, directory: TemporaryDirectory) async throws {
        self.provider = provider
        self.directory = directory
        let vault = try await openVault {
            try Vault.open(
                databasePath: directory.appending("tokens.db"), keySource: .defaultKeyFile(path: directory.appending("key")))
        }
        broker = TokenBroker(
            vault: vault, transport: try MockProviderHarness.httpClient(), options: TokenBroker.Options(),
            logger: logs.logger, now: clock.now, sleep: clock.sleep)
        await broker.start()
    }

    func configuration(scopes: [String] = scopes, gitUsername: String? = nil) -> AccountConfiguration {
        AccountConfiguration(
            name: "work", issuer: provider.issuer, clientID: "mock-client", scopes: scopes,
            gitURLPrefix: gitUsername.map { _ in "https://git.example/" }, gitUsername: gitUsername)
    }

    var currentToken: String? {
        get async {
            guard case .token(let value) = await broker.tokenOrCode() else { return nil }
            return value
        }
    }

    /// The broker stopped and started again on the same vault, as a daemon restart does.
    func restarted() async throws -> MockBrokerFixture {
        await broker.shutdown()
        return try await MockBrokerFixture(provider: provider, directory: directory)
    }

    func stop() async {
        await broker.shutdown()
        await provider.stop()
        directory.remove()
    }
}

/// `updateAccount` (PUT), `tokenRejected` (git's erase) and `idToken` against the mock provider.
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerAccountUpdateTests {
    @Test func reapplyingTheSameConfigurationIsUnchanged() async throws {
        let fixture = try await MockBrokerFixture.loggedIn()
        let token = await fixture.currentToken
        let result = try await fixture.broker.updateAccount(fixture.configuration())
        #expect(result.outcome == .unchanged && result.account.state == .active)
        #expect(await fixture.currentToken == token && token != nil)
        await fixture.stop()
    }

    @Test func gitFieldsChangeKeepsTheTokens() async throws {
        let fixture = try await MockBrokerFixture.loggedIn()
        let token = try #require(await fixture.currentToken)
        let result = try await fixture.broker.updateAccount(fixture.configuration(gitUsername: "alice"))
        #expect(result.outcome == .updated && result.account.state == .active)
        #expect(result.account.configuration?.gitUsername == "alice")
        #expect(result.account.configuration?.gitURLPrefix == "https://git.example/")
        #expect(result.account.subject == "mock-user")
        #expect(await fixture.currentToken == token)
        #expect(fixture.provider.stats.refreshes == 0 && fixture.provider.stats.revocations == 0)
        #expect(try await fixture.broker.account(named: "work").configuration?.gitUsername == "alice")
        await fixture.stop()
    }

    @Test func securityRelevantChangeLogsOut() async throws {
        let fixture = try await MockBrokerFixture.loggedIn()
        let token = try #require(await fixture.currentToken)
        let result = try await fixture.broker.updateAccount(fixture.configuration(scopes: ["openid", "offline_access"]))
        #expect(result.outcome == .signedOut)
        #expect(result.account.state == .loginRequired && result.account.expiresAt == nil && result.account.subject == nil)
        #expect(result.account.configuration?.scopes == ["openid", "offline_access"])
        #expect(await fixture.broker.tokenOrCode() == .error(.loginRequired))
        // A second change with no tokens left is a plain update.
        let again = try await fixture.broker.updateAccount(fixture.configuration(scopes: ["openid"]))
        #expect(again.outcome == .updated)
        #expect(!fixture.logs.captured.contains { $0.contains(token) })
        await fixture.stop()
    }

    @Test func aNewClientSecretLogsOutAndUnknownAccountsAreRefused() async throws {
        let fixture = try await MockBrokerFixture.loggedIn()
        var configuration = fixture.configuration()
        configuration.clientSecret = "a-new-secret"
        #expect(try await fixture.broker.updateAccount(configuration).outcome == .signedOut)
        configuration.name = "ghost"
        await #expect(throws: WireError.self) { try await fixture.broker.updateAccount(configuration) }
        await fixture.stop()
    }

    @Test func aRejectedTokenIsRefreshedOnceAndNeverLogsOut() async throws {
        let fixture = try await MockBrokerFixture.loggedIn()
        let first = try #require(await fixture.currentToken)
        // A stale or foreign report changes nothing.
        #expect(try await fixture.broker.tokenRejected(account: "work", accessToken: "not-the-token").refreshScheduled == false)
        #expect(await fixture.currentToken == first)
        #expect(try await fixture.broker.tokenRejected(account: "work", accessToken: first).refreshScheduled)
        // The fast path no longer serves it, even before the refresh ends.
        #expect(fixture.broker.cachedToken(account: "work", now: fixture.clock.now()) == nil)
        let second = try #require(await fixture.currentToken)
        #expect(second != first)
        #expect(fixture.provider.stats.refreshes == 1)
        #expect(fixture.provider.stats.familyRevocations == 0)
        // Reporting the old token again is stale: no second refresh.
        #expect(try await fixture.broker.tokenRejected(account: "work", accessToken: first).refreshScheduled == false)
        #expect(await fixture.currentToken == second)
        #expect(fixture.provider.stats.refreshes == 1)
        #expect(try await fixture.broker.account(named: "work").state == .active)
        #expect(fixture.broker.metrics().contains("authbroker_token_rejections_total{outcome=\"refresh_scheduled\"} 1"))
        await fixture.stop()
    }

    @Test func rejectionsWithinOneSecondDoNotLoop() async throws {
        let fixture = try await MockBrokerFixture.loggedIn()
        let first = try #require(await fixture.currentToken)
        #expect(try await fixture.broker.tokenRejected(account: "work", accessToken: first).refreshScheduled)
        let second = try #require(await fixture.currentToken)
        // The fresh token is refused at once too: the refresh waits for the per-second cap.
        #expect(try await fixture.broker.tokenRejected(account: "work", accessToken: second).refreshScheduled)
        #expect(fixture.provider.stats.refreshes == 1)
        fixture.clock.advance(1.5)
        let third = try #require(await fixture.currentToken)
        #expect(third != second && fixture.provider.stats.refreshes == 2)
        await fixture.stop()
    }

    @Test func idTokenIsServedWhileValidThenRefreshed() async throws {
        var knobs = MockProviderConfiguration()
        knobs.idTokenLifetime = 30
        let fixture = try await MockBrokerFixture.loggedIn(knobs)
        let first = try await fixture.broker.idToken(account: "work", minTTL: nil)
        #expect(first.idToken.split(separator: ".").count == 3)
        #expect(first.expiresAt.flatMap(RFC3339.parse).map { $0 > fixture.clock.now() } == true)
        #expect(fixture.provider.stats.refreshes == 0)
        // Less than min_ttl left: one refresh brings a new ID token (access token still valid).
        fixture.provider.configure { $0.idTokenLifetime = 3600 }
        let second = try await fixture.broker.idToken(account: "work", minTTL: 60)
        #expect(second.idToken != first.idToken)
        #expect(fixture.provider.stats.refreshes == 1)
        #expect(fixture.broker.metrics().contains("authbroker_id_tokens_served_total 2"))
        #expect(!fixture.logs.captured.contains { $0.contains(second.idToken) })
        await fixture.stop()
    }

    @Test func idTokenNeedsALogin() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        _ = try await broker.addAccount(AccountConfiguration(name: "work", issuer: harness.provider.issuer, clientID: "c"))
        await #expect(throws: WireError.self) { try await broker.idToken(account: "work", minTTL: nil) }
        do throws(WireError) {
            _ = try await broker.idToken(account: "work", minTTL: nil)
        } catch {
            #expect(error.code == .loginRequired && error.message.contains("authctl login work"))
        }
        // Logged in with a provider that returns no ID token: still login_required, after one refresh.
        _ = try await harness.addAndLogin(broker, name: "plain")
        do throws(WireError) {
            _ = try await broker.idToken(account: "plain", minTTL: nil)
            Issue.record("an ID token was served without one")
        } catch {
            #expect(error.code == .loginRequired)
        }
        await broker.shutdown()
    }

    @Test func discoveryURLIsUsedValidatedAndStored() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        let issuer = harness.provider.issuer
        do throws(WireError) {
            _ = try await broker.addAccount(
                AccountConfiguration(
                    name: "shop", issuer: issuer, clientID: "c",
                    discoveryURL: "https://shop.example/.well-known/openid-configuration"))
            Issue.record("the discovery URL was not used")
        } catch {
            #expect(error.code == .invalidRequest && error.message.contains("elsewhere.example"), "\(error.message)")
        }
        let refused: [(AccountConfiguration, String)] = [
            (AccountConfiguration(name: "a", issuer: issuer, clientID: "c", discoveryURL: "http://shop.example/x"), "https"),
            (
                AccountConfiguration(name: "a", issuer: issuer, clientID: "c", gitURLPrefix: "ftp://git.example/"),
                "git_url_prefix"
            ),
            (
                AccountConfiguration(name: "a", issuer: issuer, clientID: "c", gitURLPrefix: "http://git.example/"),
                "git_url_prefix"
            ),
            (AccountConfiguration(name: "a", issuer: issuer, clientID: "c", gitURLPrefix: "https://git.example/?a"), "query"),
            (AccountConfiguration(name: "a", issuer: issuer, clientID: "c", gitUsername: ""), "git username"),
            (AccountConfiguration(name: "a", issuer: issuer, clientID: "c", gitUsername: "a\nb"), "git username"),
            (AccountConfiguration(name: "a", issuer: issuer, clientID: "c", browser: "firefox\nrm -rf ~"), "line break"),
            (AccountConfiguration(name: "a", issuer: issuer, clientID: "c", browser: "x\u{0}"), "control character"),
            (AccountConfiguration(name: "a", issuer: issuer, clientID: "c", browser: " "), "empty"),
            (
                AccountConfiguration(
                    name: "a", issuer: issuer, clientID: "c", browser: String(repeating: "x", count: 1025)), "1024 bytes"
            ),
        ]
        await broker.expectRefused(refused)
        let document = issuer + "/.well-known/openid-configuration"
        _ = try await broker.addAccount(
            AccountConfiguration(
                name: "shop", issuer: issuer, clientID: "c", discoveryURL: document, gitURLPrefix: "http://127.0.0.1:8080/",
                gitUsername: "jürgen", browser: "firefox -P 'Work profile' %s"))
        await broker.shutdown()
        let restarted = try await harness.makeBroker()
        let shown = try await restarted.account(named: "shop").configuration
        #expect(shown?.discoveryURL == document && shown?.gitURLPrefix == "http://127.0.0.1:8080/")
        #expect(shown?.gitUsername == "jürgen" && shown?.browser == "firefox -P 'Work profile' %s")
        await restarted.shutdown()
    }
}

extension TokenBroker {
    /// Each configuration must be refused by `addAccount` with `invalid_request` naming the reason.
    func expectRefused(_ refused: [(AccountConfiguration, String)]) async {
        for (configuration, reason) in refused {
            do throws(WireError) {
                _ = try await addAccount(configuration)
                Issue.record("accepted: \(configuration)")
            } catch {
                #expect(error.code == .invalidRequest && error.message.contains(reason), "\(error.message)")
            }
        }
    }
}
