import BrokerCrypto
import TestSupport
import Testing
import WireFormats

/// JWKS, JWKs and JWS headers come from the provider: deeper than 64 levels is refused before
/// decoding, with an error naming the document.
@Suite struct JOSENestingTests {
    static let deep: [DeepDocument] = [.arrays, .objects, .holding("keys")]

    @Test(arguments: deep)
    func keySetsAndKeys(_ document: DeepDocument) {
        let json = document.bytes
        #expect(throws: JWSError.malformed("the JWKS nests JSON deeper than 64 levels")) { try JWKSet(json: json) }
        #expect(throws: JWSError.malformed("the JWK nests JSON deeper than 64 levels")) { try JWK(json: json) }
    }

    @Test(arguments: deep)
    func compactHeaders(_ document: DeepDocument) {
        let header = document.bytes
        let compact = Base64URL.encode(header) + "." + Base64URL.encode(Array("{}".utf8)) + ".c2ln"
        #expect(throws: JWSError.malformed("the header nests JSON deeper than 64 levels")) { try JWSCompact.parse(compact) }
    }
}
