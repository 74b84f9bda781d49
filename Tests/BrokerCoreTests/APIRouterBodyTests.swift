import BrokerHTTP
import BrokerProtocol
import Foundation
import Testing

@testable import BrokerCore

/// Request bodies go through the operation's `APIEndpoint` and the WireJSON coder: a bad body is a
/// 400 that names the field (never echoing the body), and answers keep Foundation's bytes.
@Suite struct APIRouterBodyTests {
    @Test func aMissingFieldIsNamed() async {
        let response = await RouterFixture().send(
            "POST", "/v1/accounts", body: #"{"issuer":"https://idp.example","client_id":"c"}"#)
        #expect(response.status == 400)
        #expect(response.wireError?.message == "The JSON body is invalid: 'name' is missing.")
    }

    @Test func aFieldOfTheWrongTypeIsNamedWithoutItsValue() async {
        let body = #"{"name":"n","issuer":"https://idp.example","client_id":"c","client_secret":["s3cret-value"]}"#
        let response = await RouterFixture().send("POST", "/v1/accounts", body: body)
        #expect(response.status == 400)
        #expect(response.wireError?.message == "The JSON body is invalid: 'client_secret' has the wrong type.")
        #expect(!response.text.contains("s3cret-value"))
    }

    @Test func notJSONAndDuplicateNamesAreInvalidJSON() async {
        for body in [#"{"name":"#, #"{"name":"a","name":"b","issuer":"https://i.example","client_id":"c"}"#] {
            let response = await RouterFixture().send("POST", "/v1/accounts", body: body)
            #expect(response.status == 400)
            #expect(response.wireError?.message == "The body is not valid JSON.", "\(body)")
        }
    }

    @Test func answersAreByteForByteWhatFoundationsSortedEncoderWrites() async throws {
        let fixture = RouterFixture()
        for path in ["/v1/ping", "/v1/status", "/v1/accounts/work", "/v1/accounts/work/token"] {
            let response = await fixture.send("GET", path)
            #expect(response.status == 200, "\(path)")
            let value = try JSONSerialization.jsonObject(with: Data(response.body))
            let foundation = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
            #expect(response.text == String(decoding: foundation, as: UTF8.self), "\(path)")
        }
    }
}
