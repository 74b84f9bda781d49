import BrokerCore
import Testing

@Suite struct RefreshBackoffTests {
    let backoff = RefreshBackoff()

    @Test func nominalScheduleDoublesUpToFiveMinutes() {
        let schedule = (1...12).map { backoff.nominalDelay(afterAttempt: $0) }
        #expect(schedule == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300])
        #expect(backoff.nominalDelay(afterAttempt: 0) == 1)
        #expect(backoff.nominalDelay(afterAttempt: Int.max) == 300)
    }

    @Test(arguments: 1...12)
    func jitterStaysWithinEightyToHundredPercent(attempt: Int) {
        let nominal = backoff.nominalDelay(afterAttempt: attempt)
        var jitter = RefreshJitter(seed: UInt64(attempt))
        for _ in 0..<200 {
            let delay = backoff.delay(afterAttempt: attempt, retryAfter: nil, jitterUnit: jitter.nextUnit())
            #expect(delay >= nominal * 0.8)
            #expect(delay <= nominal)
        }
        #expect(backoff.delay(afterAttempt: attempt, retryAfter: nil, jitterUnit: 0) == nominal)
        #expect(backoff.delay(afterAttempt: attempt, retryAfter: nil, jitterUnit: 1) == nominal * 0.8)
    }

    @Test func retryAfterWinsOnlyWhenLarger() {
        #expect(backoff.delay(afterAttempt: 1, retryAfter: 120, jitterUnit: 0.5) == 120)
        #expect(backoff.delay(afterAttempt: 9, retryAfter: 10, jitterUnit: 0) == 256)
    }

    @Test func retryAfterIsCappedAndNonsenseIgnored() {
        #expect(backoff.delay(afterAttempt: 1, retryAfter: 86_400, jitterUnit: 0) == 900)
        #expect(backoff.delay(afterAttempt: 1, retryAfter: -5, jitterUnit: 0) == 1)
        #expect(backoff.delay(afterAttempt: 1, retryAfter: .nan, jitterUnit: 0) == 1)
        #expect(backoff.delay(afterAttempt: 1, retryAfter: .infinity, jitterUnit: 0) == 1)
    }

    @Test func wakeUpsAreAtTheDueTimeHoweverFarAheadButNeverInThePast() {
        #expect(RefreshBackoff.nextWakeUp(due: nil, now: 100) == nil)
        #expect(RefreshBackoff.nextWakeUp(due: 110, now: 100) == 110)
        #expect(RefreshBackoff.nextWakeUp(due: 10_000, now: 100) == 10_000)
        #expect(RefreshBackoff.nextWakeUp(due: 50, now: 100) == 100)
    }
}
