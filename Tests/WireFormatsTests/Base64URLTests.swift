import Testing
import WireFormats

/// RFC 4648 §10 test vectors (no padding in the url alphabet), plus bytes that use `-` and `_`.
@Test(arguments: [
    ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
    ("foobar", "Zm9vYmFy"),
])
func rfc4648Vectors(text: String, encoded: String) throws {
    #expect(Base64URL.encode(ascii(text)) == encoded)
    #expect(try Base64URL.decode(encoded) == ascii(text))
}

@Test func urlAlphabetReplacesPlusAndSlash() throws {
    // Standard base64: +/8= and ++++ and ////
    #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
    #expect(Base64URL.encode([0xfb, 0xef, 0xbe]) == "----")
    #expect(Base64URL.encode([0xff, 0xff, 0xff]) == "____")
    #expect(try Base64URL.decode("-_8") == [0xfb, 0xff])
    #expect(try Base64URL.decode("____") == [0xff, 0xff, 0xff])
}

@Test(arguments: [
    "Zg==", "Zm8=", "Zg=", "+/8", "////", "Zm 9v", "Zm9v\n", " Zm9v", "Zm9v\t", "Zm\u{e9}v", "Zm9v\u{0}",
    "Z", "Zm9vY", "Zm9vYmFyZ", "Zh", "Zm9", "Zm9vYh", "=", ".", "Zm9v.",
])
func invalidTextIsRefused(text: String) {
    #expect(throws: Base64Error()) { try Base64URL.decode(text) }
}

@Test func nonCanonicalTrailingBitsAreRefusedForEveryLastCharacter() throws {
    // "Zg" is canonical for "f": of the 16 characters sharing its top 2 bits only 'g' has zero low bits.
    var accepted: [Character] = []
    for character in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" {
        if (try? Base64URL.decode("Z\(character)")) != nil { accepted.append(character) }
    }
    #expect(accepted == ["A", "Q", "g", "w"])
}

/// Every length up to 200 with bytes of every value (a fixed generator: no libcrypto here), both alphabets.
@Test func roundTrips() throws {
    var state: UInt32 = 2_463_534_242
    for length in 0..<200 {
        let bytes = (0..<length).map { _ in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
        let standard = Base64.encode(bytes)
        #expect(standard.count == (length + 2) / 3 * 4 && Base64.decode(standard) == bytes)
        let text = Base64URL.encode(bytes)
        #expect(text.count == (length * 4 + 2) / 3)
        #expect(!text.contains { "+/=".contains($0) })
        #expect(try Base64URL.decode(text) == bytes)
        #expect(try Base64URL.decode(text[...]) == bytes)
    }
}

private func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

/// The standard alphabet's decoder (certificate pins) is as strict: padding exactly where due.
@Test(arguments: ["Zg", "Zg=", "Zg===", "Zh==", "Z===", "Zm9v=", "Zm9v====", "Zm8=Zm8=", " Zm8=", "Zm-=", "Zm_=", "Z=g="])
func standardDecodingRefusesNonCanonicalText(text: String) {
    #expect(Base64.decode(text) == nil)
}

@Test func standardDecodingReadsRFC4648Vectors() {
    for (text, encoded) in [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foobar", "Zm9vYmFy")] {
        #expect(Base64.decode(encoded) == Array(text.utf8), "\(encoded)")
    }
    #expect(Base64.decode("+/8=") == [0xFB, 0xFF])
}
