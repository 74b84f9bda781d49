import BrokerProtocol
import Testing
import WireFormats

/// The proof route writes `DPoPProofGrant.jsonValue` directly: it must be what the Codable
/// encoding gives, byte for byte, or clients decoding the answer would see a different document.
@Suite struct DPoPProofGrantJSONTests {
    @Test(arguments: [
        DPoPProofGrant(
            accessToken: "eyJhbGciOi.eyJzdWIi.c2ln", tokenType: "DPoP", proof: "eyJ0eXAi.eyJqdGki.c2ln",
            expiresAt: "2030-01-01T00:00:00Z"),
        DPoPProofGrant(accessToken: "opaque-token", tokenType: "DPoP", proof: "p.q.r", expiresAt: nil),
        DPoPProofGrant(accessToken: "quote\" back\\slash \n é", tokenType: "DPoP", proof: "\u{1}", expiresAt: nil),
    ])
    func theDirectAnswerIsTheCodableEncoding(grant: DPoPProofGrant) throws {
        #expect(WireJSON.serialize(grant.jsonValue) == (try WireJSON.encode(grant)))
        #expect(try WireJSON.decode(DPoPProofGrant.self, from: WireJSON.serialize(grant.jsonValue)) == grant)
    }
}
