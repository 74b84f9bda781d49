import Testing

@testable import BrokerCore

/// The parked requests' deadlines without the actor or a clock: when the one watchdog task must be
/// (re)started, and whom it abandons when it wakes.
@Suite struct ParkedDeadlinesTests {
    static let work = AccountKey(owner: 1001, name: "work")
    static let home = AccountKey(owner: 1001, name: "home")

    @Test func requestsParkedAfterAnotherKeepTheSleepingWatchdog() {
        var deadlines = ParkedDeadlines()
        #expect(deadlines.park(1, account: Self.work, until: 130) == 130)
        #expect(deadlines.park(2, account: Self.work, until: 131) == nil, "restarted for a later deadline")
        #expect(deadlines.park(3, account: Self.home, until: 131) == nil, "restarted for an equal deadline")
        // A clock set back gives an earlier deadline: that one needs a watchdog of its own.
        #expect(deadlines.park(4, account: Self.home, until: 100) == 100)
        #expect(deadlines.watchdog == 100)
        #expect(deadlines.count == 4)
    }

    @Test func answeredRequestsLeaveWithoutWakingTheWatchdog() {
        var deadlines = ParkedDeadlines()
        _ = deadlines.park(1, account: Self.work, until: 130)
        deadlines.remove(1)
        #expect(deadlines.watchdog == 130, "the sleeping watchdog is left alone")
        #expect(deadlines.park(2, account: Self.work, until: 135) == nil)
        // It wakes, finds nothing due, and sleeps again only for what is still parked.
        let fired = deadlines.fire(deadline: 130, now: 130)
        #expect(fired?.due.isEmpty == true)
        #expect(fired?.next == 135)
        deadlines.remove(2)
        #expect(deadlines.fire(deadline: 135, now: 135)?.next == nil)
        #expect(deadlines.watchdog == nil)
        #expect(deadlines.park(3, account: Self.work, until: 170) == 170, "no watchdog started for the next request")
    }

    @Test func theWatchdogAbandonsWhatIsDueAndSleepsUntilTheNext() {
        var deadlines = ParkedDeadlines()
        _ = deadlines.park(1, account: Self.work, until: 130)
        _ = deadlines.park(2, account: Self.home, until: 130)
        _ = deadlines.park(3, account: Self.work, until: 150)
        let fired = deadlines.fire(deadline: 130, now: 131)
        #expect(fired?.due.map(\.id).sorted() == [1, 2])
        #expect(fired?.due.first { $0.id == 2 }?.account == Self.home)
        #expect(fired?.next == 150)
        #expect(deadlines.count == 1)
        // A watchdog superseded by an earlier one does nothing when it wakes.
        _ = deadlines.park(4, account: Self.work, until: 140)
        #expect(deadlines.fire(deadline: 150, now: 151) == nil)
        #expect(deadlines.count == 2)
    }
}
