import BrokerCore
import BrokerCrypto
import Testing

/// `tokenRejected` and `refreshRequested`, without I/O.
@Suite struct AccountStateMachineRejectionTests {
    @Test func theCurrentTokenIsMarkedExpiredPersistedAndRefreshed() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)
        var machine = Fixture.machine(holding: tokens, now: 1_000)
        let (scheduled, actions) = machine.tokenRejected(Secret("access-1"), now: 1_100)
        #expect(scheduled)
        var unusable = tokens
        unusable.expiresAt = 1_100
        #expect(actions.first == .persistTokens(unusable))
        #expect(actions.refreshStarts.count == 1)
        guard case .refreshing(let held, _) = machine.state else {
            Issue.record("not refreshing: \(machine.state)")
            return
        }
        #expect(held == unusable)
        // A caller now waits for the refresh instead of getting the refused token.
        #expect(machine.tokenRequested(Fixture.id(1), minTTL: nil, now: 1_100) == [.waitForRefresh(Fixture.id(1))])
    }

    @Test func staleForeignOrUnrefreshableTokensChangeNothing() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)
        var machine = Fixture.machine(holding: tokens, now: 1_000)
        let before = machine.state
        #expect(machine.tokenRejected(Secret("access-0"), now: 1_100) == (false, []))
        #expect(machine.state == before)
        var plain = Fixture.machine(holding: Fixture.tokens(refresh: nil), now: 1_000)
        let plainBefore = plain.state
        #expect(plain.tokenRejected(Secret("access-1"), now: 1_100) == (false, []))
        #expect(plain.state == plainBefore)
        var empty = Fixture.machine()
        #expect(empty.tokenRejected(Secret("access-1"), now: 1_100) == (false, []))
        #expect(empty.state == .loggedOut)
    }

    @Test func aSecondRejectionWithinASecondIsDeferredNotLooped() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600), now: 1_000)
        _ = machine.tokenRejected(Secret("access-1"), now: 1_100)
        let fresh = Fixture.tokens("access-2", obtainedAt: 1_100.2, lifetime: 3_600, refresh: "refresh-2")
        _ = machine.refreshSucceeded(fresh, generation: machine.generation, now: 1_100.2)
        let (scheduled, actions) = machine.tokenRejected(Secret("access-2"), now: 1_100.5)
        #expect(scheduled)
        #expect(actions.refreshStarts.isEmpty)
        #expect(actions.wakeUps == [1_101])
        #expect(machine.timerFired(now: 1_101).refreshStarts.count == 1)
    }

    @Test func refreshRequestedRefreshesAValidTokenButKeepsTheCap() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600), now: 1_000)
        let actions = machine.refreshRequested(Fixture.id(1), now: 1_000.1)
        #expect(actions.first == .waitForRefresh(Fixture.id(1)) && actions.refreshStarts.count == 1)
        let fresh = Fixture.tokens("access-2", obtainedAt: 1_000.3, lifetime: 3_600, refresh: "refresh-2")
        #expect(machine.refreshSucceeded(fresh, generation: 0, now: 1_000.3).served.map(\.token) == ["access-2"])
        // Within a second of the last refresh start: served as is, no second refresh.
        let capped = machine.refreshRequested(Fixture.id(2), now: 1_000.5)
        #expect(capped.served.map(\.token) == ["access-2"] && capped.refreshStarts.isEmpty)
    }
}
