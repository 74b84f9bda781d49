import BrokerProtocol
import Testing

/// `--pin-sha256` values: exactly the 44-character standard base64 of a SHA-256 (curl's format).
@Suite struct PublicKeyPinTests {
    /// SHA-256 of the empty string, as `openssl dgst -sha256 -binary | base64` prints it.
    static let emptySHA256 = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="

    @Test func aPinDecodesToItsDigestWithOrWithoutCurlsPrefix() {
        let digest = PublicKeyPin.digest(Self.emptySHA256)
        #expect(digest?.count == 32)
        #expect(digest?.prefix(4) == [0xE3, 0xB0, 0xC4, 0x42])
        #expect(digest?.suffix(2) == [0xB8, 0x55])
        #expect(PublicKeyPin.digest("sha256//" + Self.emptySHA256) == digest)
    }

    @Test(arguments: [
        "", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFV=",
        "47DEQpj8HBSa-_TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", " 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
        "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU==", "sha1//47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
        "pin-sha256=\"47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\"",
    ])
    func anythingElseIsRefused(_ text: String) {
        #expect(PublicKeyPin.digest(text) == nil, "\(text)")
        #expect(PublicKeyPin.problem(with: [text])?.contains("openssl dgst -sha256") == true)
    }

    @Test func atMostEightPins() {
        #expect(PublicKeyPin.problem(with: Array(repeating: Self.emptySHA256, count: 8)) == nil)
        #expect(PublicKeyPin.problem(with: Array(repeating: Self.emptySHA256, count: 9))?.contains("at most 8") == true)
    }
}
