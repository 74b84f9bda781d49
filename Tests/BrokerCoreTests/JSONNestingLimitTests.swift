import BrokerCore
import BrokerHTTP
import BrokerProtocol
import Foundation
import TestSupport
import Testing

/// Every parser of outside JSON in the domain refuses nesting deeper than 64 levels with an
/// error that says so, before any recursive decoder sees the bytes.
@Suite struct JSONNestingLimitTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let deepBodies: [DeepDocument] = [.arrays, .objects, .holding("access_token")]

    static func answer(_ body: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body)
    }

    @Test(arguments: deepBodies)
    func tokenUserinfoAndDeviceAnswers(_ document: DeepDocument) {
        let body = document.bytes
        let reason = "the answer nests JSON deeper than 64 levels"
        #expect(throws: OIDCError.malformedResponse(endpoint: "token_endpoint", reason: reason)) {
            try TokenResponse.parse(Self.answer(body), now: Self.now)
        }
        #expect(throws: OIDCError.malformedResponse(endpoint: "userinfo_endpoint", reason: reason)) {
            try UserInfo.parse(Self.answer(body), expectedSubject: nil, now: Self.now)
        }
        #expect(throws: OIDCError.malformedResponse(endpoint: "device_authorization_endpoint", reason: reason)) {
            try DeviceAuthorization.parse(Self.answer(body), now: Self.now)
        }
    }

    @Test func anErrorAnswerThatNestsTooDeepIsItsBareStatus() {
        #expect(throws: OIDCError.httpStatus(400, endpoint: "token_endpoint", retryAfter: nil)) {
            try TokenResponse.parse(Self.answer(DeepJSON.objects(), status: 400), now: Self.now)
        }
    }

    @Test(arguments: deepBodies)
    func idTokenPayloads(_ document: DeepDocument) {
        let body = document.bytes
        #expect(throws: IDTokenError.malformed("the payload nests JSON deeper than 64 levels")) {
            try IDTokenClaims(payload: body)
        }
    }

    @Test func justWithinTheLimitStillParses() throws {
        let body = Array(#"{"access_token":"at","token_type":"Bearer","x":"#.utf8) + DeepJSON.arrays(63) + Array("}".utf8)
        #expect(try TokenResponse.parse(Self.answer(body), now: Self.now).accessToken.revealString() == "at")
    }

    @Test(arguments: deepBodies)
    func socketRequestBodies(_ document: DeepDocument) async throws {
        let body = document.bytes
        let fixture = RouterFixture()
        let response = await fixture.send("POST", "/v1/accounts", body: String(decoding: body, as: UTF8.self))
        #expect(response.status == 400)
        #expect(
            response.wireError
                == WireError(
                    code: .invalidRequest,
                    message: "The JSON body nests deeper than 64 levels; send the flat object the API documents."))
    }
}
