import BrokerCore
import Testing

@Suite struct RefreshJitterTests {
    @Test func sameSeedSameSequenceInUnitRange() {
        var a = RefreshJitter(seed: 42)
        var b = RefreshJitter(seed: 42)
        var c = RefreshJitter(seed: 43)
        let first = (0..<100).map { _ in a.nextUnit() }
        #expect(first == (0..<100).map { _ in b.nextUnit() })
        #expect(first != (0..<100).map { _ in c.nextUnit() })
        #expect(first.allSatisfy { $0 >= 0 && $0 < 1 })
        // Spread, not stuck: both halves of the range are hit.
        #expect(first.contains { $0 < 0.5 } && first.contains { $0 >= 0.5 })
    }

    @Test func fixedJitterIsClamped() {
        var fixed = RefreshJitter.fixed(0.25)
        #expect(fixed.nextUnit() == 0.25)
        #expect(fixed.nextUnit() == 0.25)
        var high = RefreshJitter.fixed(7)
        #expect(high.nextUnit() == 1)
    }
}
