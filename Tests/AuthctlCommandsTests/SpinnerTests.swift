import Testing

@testable import AuthctlCommands

/// The time left `authctl login` shows while it waits.
@Suite struct SpinnerTests {
    @Test func timeLeftIsMinutesAndTwoDigitSeconds() {
        #expect(Spinner.left(300) == "5:00 left")
        #expect(Spinner.left(272) == "4:32 left")
        #expect(Spinner.left(65) == "1:05 left")
        #expect(Spinner.left(0) == "0:00 left")
        #expect(Spinner.left(3600) == "60:00 left")
    }

    @Test func secondsLeftRoundsUpAndNeverGoesNegative() {
        #expect(Spinner.secondsLeft(until: ContinuousClock.now - .seconds(5)) == 0)
        // A deadline 90.5 s away (measured a moment later) is 90 or 91 whole seconds, never more.
        let left = Spinner.secondsLeft(until: ContinuousClock.now + .milliseconds(90_500))
        #expect(left == 91 || left == 90)
    }
}
