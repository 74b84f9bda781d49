import BrokerCore
import BrokerHTTP
import BrokerProtocol
import Foundation
import MockProvider
import TestSupport
import Testing

import class BrokerStore.Vault

/// A stop that lands while a login's code is being exchanged keeps the login: the provider has
/// issued the tokens, so the exchange is drained like a refresh and its answer stored (defect 4 of
/// the security review covers every token-endpoint call in flight, not only refreshes).
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerLoginDrainTests {
    /// A broker on the vault in `directory` (the same file each time: a restart).
    static func broker(in directory: TemporaryDirectory) throws -> TokenBroker {
        let vault = try Vault.open(
            databasePath: directory.appending("tokens.db"), keySource: .defaultKeyFile(path: directory.appending("key")))
        return TokenBroker(
            vault: vault, transport: try MockProviderHarness.httpClient(), options: TokenBroker.Options(),
            logger: LogCapture().logger)
    }

    @Test func aCodeExchangeInFlightAtShutdownIsStored() async throws {
        let provider = try MockProvider(configuration: MockProviderConfiguration())
        let directory = try TemporaryDirectory(prefix: "authbroker-login-drain")
        defer { directory.remove() }
        func broker() throws -> TokenBroker { try Self.broker(in: directory) }
        let first = try broker()
        await first.start()
        _ = try await first.addAccount(
            AccountConfiguration(
                name: "mock", issuer: provider.issuer, clientID: "mock-client", scopes: ["openid", "offline_access"]))
        let started = try await first.startLogin(account: "mock", request: LoginRequest(timeoutSeconds: 60))

        let browser = try MockProviderHarness.httpClient(pooled: false)
        let redirect = try await browser.send(HTTPClientRequest(url: started.authorizationURL))
        let callback = try #require(redirect.headers["Location"])
        provider.configure { $0.faults["token"] = MockFault(.slow, delayMilliseconds: 3000, remaining: 1) }
        let page = Task { try await browser.send(HTTPClientRequest(url: callback)) }
        // Stop only once the exchange is waiting on the slow endpoint (the fault is taken on arrival),
        // not after a fixed sleep: on a loaded machine a 500 ms sleep once outlasted the delay.
        let deadline = ContinuousClock.now + .seconds(20)
        while provider.configuration.faults["token"]?.remaining != 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(provider.configuration.faults["token"]?.remaining == 0, "the code exchange never started")
        #expect(provider.stats.codeExchanges == 0)
        await first.shutdown()
        #expect(try await page.value.status == 200, "the browser was not told the login succeeded")

        let second = try broker()
        await second.start()
        guard case .token = await second.tokenOrCode("mock") else {
            Issue.record("the login was lost by the stop")
            return
        }
        #expect(provider.stats.codeExchanges == 1)
        await second.shutdown()
        await provider.stop()
    }

    /// The same for the device grant: a poll in flight at the stop may bring the tokens the user
    /// just approved (the device code is single-use), so it is awaited and its answer stored.
    @Test func aDevicePollInFlightAtShutdownIsStored() async throws {
        var configuration = MockProviderConfiguration()
        (configuration.deviceSlowDownPolls, configuration.devicePendingPolls, configuration.deviceInterval) = (0, 0, 1)
        configuration.faults["token"] = MockFault(.slow, delayMilliseconds: 1500, remaining: 1)
        let provider = try MockProvider(configuration: configuration)
        let directory = try TemporaryDirectory(prefix: "authbroker-device-drain")
        defer { directory.remove() }
        let first = try Self.broker(in: directory)
        await first.start()
        _ = try await first.addAccount(
            AccountConfiguration(
                name: "mock", issuer: provider.issuer, clientID: "mock-client", scopes: ["openid", "offline_access"]))
        _ = try await first.startLogin(account: "mock", request: LoginRequest(timeoutSeconds: 60, device: true))
        // Stop only once the poll is waiting on the slow endpoint (the fault is taken on arrival).
        let deadline = ContinuousClock.now + .seconds(20)
        while provider.configuration.faults["token"]?.remaining != 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        try #require(provider.configuration.faults["token"]?.remaining == 0, "the device poll never started")
        await first.shutdown()
        #expect(provider.stats.devicePolls == 1)

        let second = try Self.broker(in: directory)
        await second.start()
        guard case .token = await second.tokenOrCode("mock") else {
            Issue.record("the approved device login was lost by the stop")
            return
        }
        await second.shutdown()
        await provider.stop()
    }
}
