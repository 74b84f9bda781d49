import BrokerCrypto
import Testing

/// `Random` over getrandom(2): every length is filled, including draws longer than the 256 bytes
/// one call is guaranteed to return, and draws differ.
@Suite struct RandomTests {
    @Test(arguments: [0, 1, 16, 256, 257, 100_000])
    func aDrawHasTheLengthAskedFor(count: Int) throws {
        #expect(try Random.bytes(count).count == count)
    }

    @Test func longDrawsAreFilledToTheEnd() throws {
        // A draw left partly unfilled would end in zeros: 4 KiB of zeros at the end is 2^-32768 by chance.
        let bytes = try Random.bytes(100_000)
        #expect(bytes.suffix(4096).contains { $0 != 0 })
        #expect(bytes.prefix(4096).contains { $0 != 0 })
    }

    @Test func twoDrawsDiffer() throws {
        #expect(try Random.bytes(16) != Random.bytes(16))
        #expect(try Random.base64URL(byteCount: 32).count == 43)
    }
}
