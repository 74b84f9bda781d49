import BrokerProtocol
import TestSupport
import Testing

@testable import BrokerCore

/// A token request parked behind a refresh waits at most `Options.tokenWaitTimeout` (10 s in the
/// harness), each from the moment it parked; one watchdog task serves every parked request.
@Suite struct TokenBrokerParkedRequestTests {
    @Test(.timeLimit(.minutes(1)))
    func eachParkedRequestIsAbandonedAtItsOwnDeadline() async throws {
        var harness = try BrokerHarness()
        harness.shutdownDrainTimeout = 0.2
        defer { harness.remove() }
        let broker = try await harness.makeBrokerWithAHangingRefresh()
        let first = Task { await broker.tokenOrCode(minTTL: 90) }
        #expect(await eventually { await broker.parkedDeadlines.count == 1 })
        harness.clock.advance(5)
        let second = Task { await broker.tokenOrCode(minTTL: 90) }
        #expect(await eventually { await broker.parkedDeadlines.count == 2 })
        harness.clock.advance(6)  // past the first's deadline, not the second's
        #expect(await first.value == .error(.providerUnavailable))
        #expect(await broker.parkedDeadlines.count == 1)
        harness.clock.advance(5)
        #expect(await second.value == .error(.providerUnavailable))
        await broker.shutdown()
    }

    @Test func forcedRefreshesOneAfterAnotherShareOneWatchdog() async throws {
        var harness = try BrokerHarness()
        harness.tokenWaitTimeout = 300  // the clock moves 120 s: the first request's watchdog still sleeps
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        #expect(try await harness.addAndLogin(broker).outcome == .succeeded)
        harness.clock.advance(60)
        #expect(await broker.tokenOrCode(minTTL: 90) == .token(harness.provider.with { $0.issuedAccess.last } ?? ""))
        let watchdog = try #require(await broker.parkedWatchdog)
        harness.clock.advance(60)
        #expect(await broker.tokenOrCode(minTTL: 90) == .token(harness.provider.with { $0.issuedAccess.last } ?? ""))
        #expect(await broker.parkedWatchdog == watchdog, "answering a parked request cancelled or replaced the watchdog")
        #expect(await broker.parkedDeadlines.count == 0)
        await broker.shutdown()
    }
}
