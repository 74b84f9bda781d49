import Dispatch
import Testing

@testable import BrokerCore

/// `Parking`: a token request is registered and answered on the broker's actor but parks off it,
/// so an answer can come before, while or after the caller parks, from another thread.
@Suite(.timeLimit(.minutes(1)))
struct ParkingTests {
    @Test func anAnswerBeforeTheCallerParksIsHandedOverWhenItParks() async {
        let parking = Parking<Int>()
        parking.expect(7)
        #expect(parking.isWaiting(7), "registered to park: a give-up or the shutdown must see it")
        #expect(parking.waitingIDs == [7])
        #expect(parking.deliver(42, to: 7))
        #expect(!parking.isWaiting(7) && parking.waitingIDs.isEmpty)
        #expect(await withCheckedContinuation { parking.park(7, $0) } == 42)
    }

    @Test func theFirstAnswerWins() async {
        let parking = Parking<Int>()
        parking.expect(1)
        #expect(!parking.hasAnswer(1))
        #expect(parking.deliver(1, to: 1))
        #expect(parking.hasAnswer(1), "the broker counts an error only for an answer that will be taken")
        #expect(!parking.deliver(2, to: 1), "a second answer (a late give-up) is refused")
        #expect(await withCheckedContinuation { parking.park(1, $0) } == 1)
        #expect(!parking.hasAnswer(1))
    }

    @Test func aParkedCallerIsResumedByTheAnswer() async {
        let parking = Parking<Int>()
        // Not `expect`ed: waiting only once the continuation is parked, so the answer below finds it.
        async let answer = withCheckedContinuation { parking.park(3, $0) }
        while !parking.isWaiting(3) { await Task.yield() }
        #expect(parking.take(3) == nil, "nothing answered yet")
        #expect(parking.deliver(9, to: 3))
        #expect(await answer == 9)
        #expect(parking.waitingIDs.isEmpty)
    }

    @Test func callersParkingWhileOtherThreadsAnswerGetTheirOwnAnswers() async {
        let parking = Parking<Int>()
        let count = 2_000
        for id in 0..<count { parking.expect(UInt64(id)) }
        // Answers from another thread, in an order the parks do not follow.
        DispatchQueue.global().async {
            for id in stride(from: count - 1, through: 0, by: -1) { parking.deliver(id * 10, to: UInt64(id)) }
        }
        let answers = await withTaskGroup(of: (Int, Int).self) { group in
            for id in 0..<count {
                group.addTask { (id, await withCheckedContinuation { parking.park(UInt64(id), $0) }) }
            }
            return await group.reduce(into: [Int: Int]()) { $0[$1.0] = $1.1 }
        }
        #expect(answers.count == count && answers.allSatisfy { $0.value == $0.key * 10 })
        #expect(parking.waitingIDs.isEmpty)
    }
}
