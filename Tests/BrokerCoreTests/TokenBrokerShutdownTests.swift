import BrokerCore
import BrokerProtocol
import Foundation
import TestSupport
import Testing

/// Shutdown drains refreshes in flight (their answers are committed), but only for
/// `shutdownDrainTimeout`: a token endpoint that never answers cannot hold up a stop.
@Suite struct TokenBrokerShutdownTests {
    @Test func aRefreshInFlightAtShutdownIsCommitted() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        #expect(try await harness.addAndLogin(broker).outcome == .succeeded)
        harness.provider.with { $0.tokenDelay = .milliseconds(300) }
        harness.clock.advance(60)  // inside the margin: the next request refreshes first
        let caller = Task { await broker.tokenOrCode(minTTL: 90) }
        #expect(await eventually { harness.logs.captured.contains { $0.contains("refreshing the access token") } })
        await broker.shutdown()
        let refreshed = harness.provider.with { $0.issuedAccess.last }
        #expect(await caller.value == .token(refreshed ?? ""), "the parked caller did not get the drained answer")
        let restarted = try await harness.makeBroker()
        #expect(await restarted.tokenOrCode() == .token(refreshed ?? ""), "the drained answer was not committed")
        #expect(harness.provider.with { $0.familyRevocations } == 0)
        await restarted.shutdown()
    }

    @Test(.timeLimit(.minutes(1)))
    func theDrainGivesUpAtItsBound() async throws {
        var harness = try BrokerHarness()
        harness.shutdownDrainTimeout = 0.2
        defer { harness.remove() }
        let broker = try await harness.makeBrokerWithAHangingRefresh()
        let caller = Task { await broker.tokenOrCode(minTTL: 90) }
        #expect(await eventually { harness.logs.captured.contains { $0.contains("refreshing the access token") } })
        await broker.shutdown()
        #expect(harness.logs.captured.contains { $0.contains("gave up after") })
        #expect(await caller.value == .error(.providerUnavailable))
    }
}
