import BrokerCore
import TestSupport
import Testing

/// A 3xx from the token endpoint (a captive portal, a proxy's login page) says nothing about the
/// grant: it was found treated as terminal, which deleted the refresh token. It must be retried.
@Suite struct TokenBrokerRedirectTests {
    @Test func aRedirectFromTheTokenEndpointIsRetriedAndKeepsTheLogin() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        _ = try await harness.addAndLogin(broker)
        let first = try harness.provider.issuedAccess(0)
        harness.provider.with { $0.mode = .redirect }
        harness.clock.advance(60)
        #expect(await eventually { broker.metrics().contains("authbroker_refreshes_total{outcome=\"transient\"} 1") })
        #expect(broker.metrics().contains("authbroker_refreshes_total{outcome=\"terminal\"} 0"))
        #expect(await broker.tokenOrCode() == .token(first))
        #expect(await broker.status().accounts.first?.state != .loginRequired)

        harness.provider.with { $0.mode = .normal }
        let recovered = await eventually {
            harness.clock.advance(5)
            return harness.provider.with { $0.refreshes } == 1
        }
        #expect(recovered, "the refresh token was given up after a redirect")
        let latest = harness.provider.with { $0.issuedAccess.last! }
        #expect(await eventually { await broker.tokenOrCode() == .token(latest) })
        await broker.shutdown()
    }
}
