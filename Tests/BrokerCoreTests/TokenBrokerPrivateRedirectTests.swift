import BrokerCore
import BrokerHTTP
import BrokerProtocol
import Foundation
import MockProvider
import TestSupport
import Testing

import class BrokerStore.Vault

/// A private-use scheme redirect login (RFC 8252 §7.1) through the broker over real sockets: no
/// listener, the test plays the browser up to the redirect, then hands its URL to the callback
/// route's `loginCallback` as `authctl callback` would. The mock client accepts only its
/// registered redirect URI.
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerPrivateRedirectTests {
    static let redirect = "com.example.authbroker-test:/oauth/callback"

    static func provider() throws -> MockProvider {
        var knobs = MockProviderConfiguration()
        knobs.registeredRedirectURI = redirect
        return try MockProvider(configuration: knobs)
    }

    static func makeBroker(_ provider: MockProvider, in directory: TemporaryDirectory, logs: LogCapture) async throws
        -> TokenBroker
    {
        let vault = try await openVault {
            try Vault.open(
                databasePath: directory.appending("tokens.db"), keySource: .defaultKeyFile(path: directory.appending("key")))
        }
        let broker = TokenBroker(
            vault: vault, transport: try MockProviderHarness.httpClient(), options: TokenBroker.Options(), logger: logs.logger)
        await broker.start()
        _ = try await broker.addAccount(
            AccountConfiguration(
                name: "mock", issuer: provider.issuer, clientID: "mock-client", scopes: ["openid", "offline_access"],
                redirectURI: redirect))
        return broker
    }

    /// The browser: the authorization endpoint's redirect, which it would hand to the scheme's handler.
    static func redirectLocation(_ started: LoginStarted) async throws -> String {
        let browser = try MockProviderHarness.httpClient(pooled: false)
        let answer = try await browser.send(HTTPClientRequest(url: started.authorizationURL))
        try #require(answer.status == 302)
        let location = try #require(answer.headers["Location"])
        try #require(location.hasPrefix(redirect + "?"))
        return location
    }

    @Test func callbackCompletesTheLoginAndARepeatIsRefused() async throws {
        let provider = try Self.provider()
        let directory = try TemporaryDirectory(prefix: "authbroker-private-redirect")
        defer { directory.remove() }
        let logs = LogCapture()
        let broker = try await Self.makeBroker(provider, in: directory, logs: logs)

        let started = try await broker.startLogin(account: "mock", request: LoginRequest(timeoutSeconds: 60))
        #expect(started.authorizationURL.contains("redirect_uri=com.example.authbroker-test%3A%2Foauth%2Fcallback"))
        let location = try await Self.redirectLocation(started)

        let status = try await broker.loginCallback(url: location, owner: testRequester.uid)
        #expect(status.outcome == .succeeded && status.subject == "mock-user" && status.loginID == started.loginID)
        #expect(try await broker.loginStatus(id: started.loginID, wait: 0).outcome == .succeeded, "the waiting login learns it")
        guard case .token(let token) = await broker.tokenOrCode("mock") else {
            Issue.record("no token after the callback")
            return
        }
        await #expect(throws: WireError.self) { try await broker.loginCallback(url: location, owner: testRequester.uid) }
        #expect(provider.stats.codeExchanges == 1, "a replay never reaches the token endpoint")

        let code = try #require(location.split(separator: "code=").last?.split(separator: "&").first)
        await broker.shutdown()
        await provider.stop()
        #expect(!logs.captured.contains { $0.contains(code) || $0.contains(token) })
    }

    /// A login started for the private-use account, with the redirect the browser got; `body`
    /// runs with it, then the broker and the provider stop.
    struct PendingLogin {
        let provider: MockProvider
        let broker: TokenBroker
        let started: LoginStarted
        let location: String
    }

    static func withPendingLogin(
        _ configure: (inout MockProviderConfiguration) -> Void = { _ in }, _ body: (PendingLogin) async throws -> Void
    ) async throws {
        let provider = try Self.provider()
        provider.configure(configure)
        let directory = try TemporaryDirectory(prefix: "authbroker-private-redirect")
        defer { directory.remove() }
        let broker = try await Self.makeBroker(provider, in: directory, logs: LogCapture())
        let started = try await broker.startLogin(account: "mock", request: LoginRequest(timeoutSeconds: 60))
        let login = PendingLogin(
            provider: provider, broker: broker, started: started, location: try await Self.redirectLocation(started))
        try await body(login)
        await broker.shutdown()
        await provider.stop()
    }

    @Test func aForeignStateOrAnotherUsersCallbackLeavesThePendingLoginUntouched() async throws {
        try await Self.withPendingLogin { (login) async throws in
            let forged = Self.redirect + "?code=stolen&state=not-this-logins-state"
            for (url, owner) in [(forged, testRequester.uid), (login.location, testRequester.uid &+ 1)] {
                do throws(WireError) {
                    _ = try await login.broker.loginCallback(url: url, owner: owner)
                    Issue.record("must be refused")
                } catch {
                    #expect(error.code == .invalidRequest && !error.message.contains("stolen"))
                }
            }
            #expect(try await login.broker.loginStatus(id: login.started.loginID, wait: 0).outcome == .pending)
            #expect(login.provider.stats.codeExchanges == 0)
            #expect(try await login.broker.loginCallback(url: login.location, owner: testRequester.uid).outcome == .succeeded)
        }
    }

    @Test func twoUsesOfOneRedirectAtOnceCompleteItOnce() async throws {
        try await Self.withPendingLogin { (login) async throws in
            let outcomes = await withTaskGroup(of: LoginStatus.Outcome?.self) { group in
                for _ in 0..<2 {
                    group.addTask { try? await login.broker.loginCallback(url: login.location, owner: testRequester.uid).outcome }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == .succeeded }.count == 1 && outcomes.filter { $0 == nil }.count == 1, "\(outcomes)")
            #expect(login.provider.stats.codeExchanges == 1)
        }
    }

    @Test func theProvidersErrorFailsTheLogin() async throws {
        try await Self.withPendingLogin({ $0.denyConsent = true }) { login in
            let status = try await login.broker.loginCallback(url: login.location, owner: testRequester.uid)
            #expect(status.outcome == .failed && status.error?.message.contains("access_denied") == true)
        }
    }

    @Test func theMockClientRefusesALoopbackRedirect() async throws {
        let provider = try Self.provider()
        let browser = try MockProviderHarness.httpClient(pooled: false)
        let url =
            provider.url("authorize") + "?client_id=mock-client&response_type=code&redirect_uri="
            + FormURLEncoding.encodeComponent("http://127.0.0.1:4000/callback")
        #expect(try await browser.send(HTTPClientRequest(url: url)).status == 400)
        await provider.stop()
    }
}
