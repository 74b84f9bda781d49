@testable import BrokerCore
import Testing

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
}
