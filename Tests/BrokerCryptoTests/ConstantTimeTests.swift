import BrokerCrypto
import Testing
import WireFormats

@Test func constantTimeEqualityCompares() {
    #expect(ConstantTime.equals(ascii("state-123"), ascii("state-123")))
    #expect(!ConstantTime.equals(ascii("state-123"), ascii("state-124")))
    #expect(!ConstantTime.equals(ascii("state-123"), ascii("xtate-123")))
    #expect(!ConstantTime.equals(ascii("state-123"), ascii("state-1234")))
    #expect(!ConstantTime.equals(ascii(""), ascii("a")))
    #expect(ConstantTime.equals([UInt8](), [UInt8]()))
    #expect(ConstantTime.equals("abc", "abc"))
    #expect(!ConstantTime.equals("abc", "abd"))
    #expect(!ConstantTime.equals("é", "e\u{301}"), "compares bytes, not Unicode equivalence")
    #expect(ConstantTime.equals(ascii("abcdef")[1..<3], ascii("bc")))
}

@Test func randomBytesHaveTheLengthAndDiffer() throws {
    #expect(try Random.bytes(0) == [])
    let first = try Random.bytes(32)
    let second = try Random.bytes(32)
    #expect(first.count == 32)
    #expect(first != [UInt8](repeating: 0, count: 32))
    #expect(first != second)
    #expect(try Random.bytes(1000).count == 1000)
    let verifier = try Random.base64URL(byteCount: 32)
    #expect(verifier.count == 43)
    #expect(try Base64URL.decode(verifier).count == 32)
}

@Test func oversizedRandomRequestsThrowInsteadOfTrapping() {
    let count = Int(Int32.max) + 1
    #expect(throws: CryptoError.invalidParameters("\(count) random bytes in one call")) { try Random.bytes(count) }
}
