import Testing
import WireFormats

@Suite struct Base64Tests {
    @Test func encodesTheRFC4648Section10Vectors() {
        let vectors = [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
        ]
        for (input, expected) in vectors {
            #expect(Base64.encode(Array(input.utf8)) == expected, "BASE64(\"\(input)\")")
        }
    }

    @Test func usesTheStandardAlphabetForHighSextets() {
        // 0xFB 0xFF 0xBF is sextets 62 63 62 63: "+" and "/", not base64url's "-" and "_".
        #expect(Base64.encode([0xFB, 0xFF, 0xBF]) == "+/+/")
        #expect(Base64.encode([0xFB]) == "+w==")
        #expect(Base64.encode(Array(0...255)).hasSuffix("+fr7/P3+/w=="))
    }

    @Test func encodesBasicCredentialsAsRFC7617Shows() {
        // RFC 7617 §2: user "Aladdin", password "open sesame".
        #expect(Base64.encode(Array("Aladdin:open sesame".utf8)) == "QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
    }
}
