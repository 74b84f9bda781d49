import BrokerCrypto
import Testing
import WireFormats

private func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

private let goodHeader = b64(#"{"alg":"ES256","kid":"k1","typ":"JWT","x5t":"ignored"}"#)
private let payload = b64(#"{"sub":"1"}"#)

@Test func parseSplitsHeaderPayloadSignatureAndSigningInput() throws {
    let jws = try JWSCompact.parse("\(goodHeader).\(payload).AQID")
    #expect(jws.header == JOSEHeader(alg: "ES256", kid: "k1", typ: "JWT"))
    #expect(jws.payload == Array(#"{"sub":"1"}"#.utf8))
    #expect(jws.signature == [1, 2, 3])
    #expect(jws.signingInput == Array("\(goodHeader).\(payload)".utf8))
}

@Test(arguments: [
    ("", "expected 3 dot-separated parts, found 1"),
    ("\(goodHeader).\(payload)", "expected 3 dot-separated parts, found 2"),
    ("\(goodHeader).\(payload).AQID.AQID", "expected 3 dot-separated parts, found 4"),
    ("\(goodHeader).\(payload).AQID.", "expected 3 dot-separated parts, found 4"),
    ("\(goodHeader)=.\(payload).AQID", "the header is not unpadded base64url"),
    ("\(goodHeader).\(payload)+.AQID", "the payload is not unpadded base64url"),
    ("\(goodHeader).\(payload).AQ/D", "the signature is not unpadded base64url"),
    ("\(goodHeader).\(payload).AQI=", "the signature is not unpadded base64url"),
    ("\(goodHeader).\(payload).A", "the signature is not unpadded base64url"),
    (" \(goodHeader).\(payload).AQID", "the header is not unpadded base64url"),
])
func malformedCompactStringsAreRefused(token: String, why: String) {
    #expect(throws: JWSError.malformed(why)) { try JWSCompact.parse(token) }
}

@Test(arguments: [
    #"["alg","RS256"]"#, #""RS256""#, "42", "null", "", "{", #"{"kid":"k1"}"#, #"{"alg":256}"#,
    #"{"alg":null}"#, #"{"alg":"RS256","kid":7}"#, "not json",
])
func headersThatAreNotObjectsWithAStringAlgAreRefused(header: String) {
    #expect(throws: JWSError.malformed("the header is not a JSON object with a string \"alg\"")) {
        try JWSCompact.parse("\(b64(header)).\(payload).AQID")
    }
}

@Test func aCritHeaderIsRefused() {
    let header = b64(#"{"alg":"RS256","crit":["exp"],"exp":1}"#)
    #expect(throws: JWSError.malformed("the header has a \"crit\" extension the broker cannot honour")) {
        try JWSCompact.parse("\(header).\(payload).AQID")
    }
}

@Test func oversizedInputIsRefusedBeforeDecoding() {
    let huge = String(repeating: "A", count: JWSCompact.maximumLength) + ".."
    #expect(
        throws: JWSError.malformed("\(JWSCompact.maximumLength + 2) bytes exceeds the \(JWSCompact.maximumLength)-byte limit")
    ) {
        try JWSCompact.parse(huge)
    }
}

@Test func errorDescriptionsNeverQuoteTheToken() throws {
    let secretLooking = b64("eyJ-this-is-the-token-body")
    let tokens = ["\(goodHeader).\(secretLooking)", "\(goodHeader).\(secretLooking).A", "\(b64("[1]")).\(secretLooking).AQID"]
    for token in tokens {
        do {
            _ = try JWSCompact.parse(token)
            Issue.record("\(token) parsed")
        } catch {
            #expect(!error.description.contains(secretLooking))
            #expect(error.description.hasPrefix("malformed JWS: "))
        }
    }
}

@Test func algorithmHashesMatchTheirSHA2Function() {
    let input = Array("access-token".utf8)
    #expect(JWSAlgorithm.rs256.hash(input) == SHA256.hash(input))
    #expect(JWSAlgorithm.ps256.hash(input).count == 32)
    #expect(JWSAlgorithm.es384.hash(input) == SHA384.hash(input))
    #expect(JWSAlgorithm.rs512.hash(input) == SHA512.hash(input))
    #expect(JWSAlgorithm.edDSA.hash(input).count == 64)
    #expect(JWSAlgorithm.allCases.map(\.rawValue) == ["RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA"])
}
