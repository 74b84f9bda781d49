import Testing

@testable import BrokerCore

/// The wake-up schedule without the actor or a clock: which deadline the one scheduler task sleeps
/// until, when it must be restarted, and what is due when it wakes.
@Suite struct WakeUpScheduleTests {
    static let work = AccountKey(owner: 1001, name: "work")
    static let home = AccountKey(owner: 1001, name: "home")
    static let other = AccountKey(owner: 1002, name: "work")

    @Test func aLaterWakeUpKeepsTheSleepingTaskAndAnEarlierOneReplacesIt() {
        var schedule = WakeUpSchedule()
        schedule.arm(Self.work, at: 300)
        #expect(schedule.reschedule() == 300)
        schedule.arm(Self.home, at: 400)
        #expect(schedule.reschedule() == nil, "restarted for a later wake-up")
        schedule.arm(Self.other, at: 300)
        #expect(schedule.reschedule() == nil, "restarted for an equal wake-up")
        schedule.arm(Self.home, at: 100)
        #expect(schedule.reschedule() == 100)
        #expect(schedule.deadline == 100)
    }

    @Test func theSchedulerSleepsUntilTheEarliestWakeUpAndRearmingReplacesOne() {
        var schedule = WakeUpSchedule()
        #expect(schedule.reschedule() == nil, "a task started with nothing to wake")
        schedule.arm(Self.work, at: 100)
        schedule.arm(Self.home, at: 200)
        schedule.arm(Self.work, at: 500)
        #expect(schedule[Self.work] == 500)
        #expect(schedule.reschedule() == 200, "slept until a replaced or a later wake-up")
        #expect(schedule.deadline == 200)
    }

    @Test func wakingFiresWhatIsDueAndSleepsUntilTheNext() {
        var schedule = WakeUpSchedule()
        schedule.arm(Self.work, at: 100)
        schedule.arm(Self.other, at: 100)
        schedule.arm(Self.home, at: 250)
        let deadline = schedule.reschedule()!
        let due = schedule.fire(deadline: deadline, now: 101)
        #expect(due.map(Set.init) == [Self.work, Self.other])
        #expect(schedule[Self.work] == nil && schedule[Self.other] == nil, "a fired wake-up stayed armed")
        #expect(schedule.deadline == nil)
        #expect(schedule.reschedule() == 250)
    }

    @Test func aSupersededTaskThatWakesFiresNothing() {
        var schedule = WakeUpSchedule()
        schedule.arm(Self.work, at: 300)
        _ = schedule.reschedule()
        schedule.arm(Self.home, at: 100)
        _ = schedule.reschedule()
        #expect(schedule.fire(deadline: 300, now: 301) == nil)
        #expect(schedule[Self.work] == 300 && schedule[Self.home] == 100)
        #expect(schedule.fire(deadline: 100, now: 301).map(Set.init) == [Self.work, Self.home])
    }

    @Test func aCancelledWakeUpIsNotFired() {
        var schedule = WakeUpSchedule()
        schedule.arm(Self.work, at: 100)
        schedule.arm(Self.home, at: 200)
        let deadline = schedule.reschedule()!
        schedule.cancel(Self.work)
        #expect(schedule.fire(deadline: deadline, now: 150) == [])
        #expect(schedule.reschedule() == 200)
        schedule.cancel(Self.home)
        #expect(schedule.reschedule() == nil)
    }

    @Test func whatIsDueBeyondThisSecondsBoundWaitsForTheNextSecondEarliestFirst() {
        var schedule = WakeUpSchedule(perSecond: 1)
        schedule.arm(Self.home, at: 100.5)
        schedule.arm(Self.work, at: 100)
        let first = schedule.reschedule()!
        #expect(schedule.fire(deadline: first, now: 100.6) == [Self.work])
        #expect(schedule.reschedule() == 101, "woke again within the spent second")
        #expect(schedule.fire(deadline: 101, now: 101) == [Self.home])
        schedule.arm(Self.other, at: 101.2)
        #expect(schedule.reschedule() == 102)
    }

    @Test func anEarlierWakeUpAfterTheEarliestMovedLaterIsFound() {
        var schedule = WakeUpSchedule()
        schedule.arm(Self.work, at: 100)
        schedule.arm(Self.home, at: 200)
        #expect(schedule.reschedule() == 100)
        schedule.arm(Self.work, at: 300)  // the earliest moved later: the next is home's
        let fired = schedule.fire(deadline: 100, now: 100)
        #expect(fired == [])
        #expect(schedule.reschedule() == 200)
    }

    /// 10,000 accounts signed in within 5 s with the same 1-hour lifetime: their machines plan
    /// refreshes inside a 35-s window (jitter ≤ 30 s, ≈ 290 a second); the schedule starts at most
    /// `defaultPerSecond` in any second, and every one of them before its token expires.
    @Test func tokensThatExpireTogetherAreRefreshedAtMostPerSecondPerSecond() {
        let count = 10_000
        let keys = (0..<count).map { AccountKey(owner: 1000, name: "acct-\($0)") }
        let index = Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, $0) })
        let obtainedAt = (0..<count).map { 1_000 + Double($0) * 5 / Double(count) }
        var machines = (0..<count).map { AccountStateMachine(account: "acct-\($0)", jitter: RefreshJitter(seed: UInt64($0))) }
        var schedule = WakeUpSchedule()
        for i in 0..<count {
            for at in machines[i].restored(Fixture.tokens(obtainedAt: obtainedAt[i], lifetime: 3_600), now: 1_005).wakeUps {
                schedule.arm(keys[i], at: at)
            }
        }
        var perSecond: [Int: Int] = [:]
        var late = 0
        while let deadline = schedule.reschedule() ?? schedule.deadline {
            let now = deadline + 0.001  // a real sleep wakes a little after its deadline
            for key in schedule.fire(deadline: deadline, now: now) ?? [] {
                let i = index[key]!
                let actions = machines[i].timerFired(now: now)
                perSecond[Int(now.rounded(.down)), default: 0] += actions.refreshStarts.count
                if !actions.refreshStarts.isEmpty, now >= obtainedAt[i] + 3_600 { late += 1 }
                for at in actions.wakeUps { schedule.arm(key, at: at) }
            }
        }
        #expect(perSecond.values.reduce(0, +) == count)
        #expect(perSecond.values.max() == WakeUpSchedule.defaultPerSecond)
        #expect(late == 0, "refreshed after the token expired")
    }
}
