import BrokerProtocol
import Testing
import WireFormats

/// `DPoPProofRequest.init(plainJSON:)`, the proof route's direct reading of its body, against the
/// generic `Decodable` path it stands in for: whenever it reads a body, the generic decoder reads
/// the same request; whatever it declines, the generic decoder still handles (value or error).
@Suite struct DPoPProofRequestPlainJSONTests {
    static let bodies = [
        #"{"method":"GET","url":"https://api.example/v1/items?id=7"}"#,
        #"{"url":"https://api.example/","method":"POST","nonce":"n-1"}"#,
        #"{"method":"GET","url":"https://a.example/","scope":"read write","resource":"https://r.example/","audience":"aud"}"#,
        #"{"method":"GET","url":"https://a.example/","nonce":"\u006e\"x"}"#,
        #"{"method":"GET","url":"https://a.example/","nonce":null}"#,
        #"{"method":"GET","url":"https://a.example/","extra":"ignored"}"#,
        #"{"method":"GET","url":"https://a.example/","extra":{"deep":[1,2]}}"#,
        #"{"method":"GET"}"#,
        #"{"url":"https://a.example/"}"#,
        #"{"method":7,"url":"https://a.example/"}"#,
        #"{"method":"GET","url":"https://a.example/","scope":["read"]}"#,
        #"{"method":"GET","url":"https://a.example/","nonce":true}"#,
        #"["GET","https://a.example/"]"#,
        #""GET""#,
        "{}",
    ]

    @Test(arguments: bodies)
    func theDirectReadingAgreesWithTheGenericDecoder(body: String) throws {
        let json = try WireJSON.parse(Array(body.utf8))
        let generic = Result { () throws(WireJSONError) in try WireJSON.decode(DPoPProofRequest.self, from: json) }
        guard let plain = DPoPProofRequest(plainJSON: json) else { return }
        #expect(generic == .success(plain))
    }

    @Test func theUsualBodiesAreReadDirectly() throws {
        for body in Self.bodies.prefix(4) {
            #expect(DPoPProofRequest(plainJSON: try WireJSON.parse(Array(body.utf8))) != nil, "\(body)")
        }
        let full = try #require(DPoPProofRequest(plainJSON: try WireJSON.parse(Array(Self.bodies[2].utf8))))
        #expect(
            full.scope == "read write" && full.resource == "https://r.example/" && full.audience == "aud" && full.nonce == nil)
    }
}
