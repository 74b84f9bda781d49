import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import Testing

@Suite struct DeviceFlowTests {
    static let authorization = DeviceAuthorization(
        deviceCode: Secret("dc"), userCode: "WDJB-MJHT", verificationURI: "https://id.example.com/device",
        expiresIn: .seconds(60), interval: .seconds(5))

    static func oauth(_ code: String, retryAfter: Duration? = nil) -> Result<TokenResponse, OIDCError> {
        .failure(.oauthError(OAuthErrorResponse(error: code), status: 400, retryAfter: retryAfter))
    }

    @Test func pollStateMachineSequence() {
        var state = DevicePollState(authorization: Self.authorization, startedAt: .seconds(100))
        #expect(state.start(at: .seconds(100)) == .poll(after: .seconds(5)))
        #expect(state.handle(Self.oauth("authorization_pending"), at: .seconds(105)) == .poll(after: .seconds(5)))
        #expect(state.handle(Self.oauth("slow_down"), at: .seconds(110)) == .poll(after: .seconds(10)))
        #expect(state.handle(Self.oauth("authorization_pending"), at: .seconds(120)) == .poll(after: .seconds(10)))
        #expect(state.handle(.failure(.transport(.timeout("read"))), at: .seconds(130)) == .poll(after: .seconds(20)))
        #expect(state.handle(Self.oauth("authorization_pending"), at: .seconds(145)) == .failed(.deviceCodeExpired))
        let tokens = TokenResponse(accessToken: Secret("at"))
        #expect(state.handle(.success(tokens), at: .seconds(150)) == .finished(tokens))
    }

    @Test func terminalAnswersEndThePolling() {
        var state = DevicePollState(authorization: Self.authorization, startedAt: .zero)
        #expect(state.handle(Self.oauth("expired_token"), at: .seconds(5)) == .failed(.deviceCodeExpired))
        #expect(state.handle(Self.oauth("access_denied"), at: .seconds(5)) == .failed(.deviceAccessDenied))
        let invalid = OIDCError.oauthError(OAuthErrorResponse(error: "invalid_client"), status: 401, retryAfter: nil)
        #expect(state.handle(.failure(invalid), at: .seconds(5)) == .failed(invalid))
    }

    @Test func driverPollsWithTheInjectedClock() async throws {
        let transport = FakeTransport()
        transport.on(
            "\(testIssuer)/device",
            .json([
                "device_code": "dc-1", "user_code": "ABCD-EFGH", "verification_uri": "https://id.example.com/activate",
                "verification_uri_complete": "https://id.example.com/activate?user_code=ABCD-EFGH", "expires_in": 600,
                "interval": 2,
            ]))
        transport.on(
            "\(testIssuer)/token",
            .json(["error": "authorization_pending"], status: 400), .json(["error": "slow_down"], status: 400),
            .json(["error": "authorization_pending"], status: 400),
            .json(["access_token": "at", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt"]))
        let time = TestTime()
        let client = OIDCClient(transport: transport, time: time.time)
        let config = ClientConfiguration(clientID: "cli", scopes: ["offline_access"])
        let authorization = try await client.startDeviceAuthorization(metadata: testMetadata(), client: config)
        #expect(authorization.userCode == "ABCD-EFGH" && authorization.interval == .seconds(2))
        let tokens = try await client.pollDeviceAuthorization(authorization, metadata: testMetadata(), client: config)
        #expect(tokens.accessToken == Secret("at") && tokens.refreshToken == Secret("rt"))
        #expect(time.sleeps == [.seconds(2), .seconds(2), .seconds(7), .seconds(7)])
        let requests = transport.requests
        #expect(formFields(requests[0].body) == ["scope": "offline_access", "client_id": "cli"])
        #expect(
            requests.dropFirst().allSatisfy {
                formFields($0.body) == [
                    "grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": "dc-1", "client_id": "cli",
                ]
            })
    }

    @Test func driverStopsOnDenial() async throws {
        let transport = FakeTransport()
        transport.on("\(testIssuer)/token", .json(["error": "access_denied"], status: 400))
        let client = OIDCClient(transport: transport, time: TestTime().time)
        await #expect(throws: OIDCError.deviceAccessDenied) {
            try await client.pollDeviceAuthorization(
                Self.authorization, metadata: testMetadata(), client: ClientConfiguration(clientID: "c"))
        }
    }

    /// GitHub's `slow_down` names the new interval; RFC 8628 §3.5's +5 s is the floor (issue 12).
    @Test func slowDownsIntervalIsObeyedWhenLongerThanFiveMoreSeconds() async throws {
        let transport = FakeTransport()
        transport.on(
            "\(testIssuer)/token",
            .json(["error": "slow_down", "interval": 30]), .json(["error": "slow_down", "interval": 2]),
            .json(["error": "slow_down", "interval": 100_000]), .json(["error": "access_denied"]))
        let time = TestTime()
        let client = OIDCClient(transport: transport, time: time.time)
        let authorization = DeviceAuthorization(
            deviceCode: Secret("dc"), userCode: "U", verificationURI: "https://x/device", expiresIn: .seconds(3600))
        await #expect(throws: OIDCError.deviceAccessDenied) {
            try await client.pollDeviceAuthorization(
                authorization, metadata: testMetadata(), client: ClientConfiguration(clientID: "c"))
        }
        #expect(time.sleeps == [.seconds(5), .seconds(30), .seconds(35), .seconds(300)])
    }

    /// GitHub: every poll is answered with HTTP 200, its errors included (issue 12).
    @Test func driverReadsErrorsAnsweredWithHTTP200() async throws {
        let transport = FakeTransport()
        transport.on(
            "\(testIssuer)/token",
            .json(["error": "authorization_pending"]), .json(["error": "slow_down", "interval": 10]),
            .json(["error": "access_denied"]))
        let time = TestTime()
        let client = OIDCClient(transport: transport, time: time.time)
        await #expect(throws: OIDCError.deviceAccessDenied) {
            try await client.pollDeviceAuthorization(
                Self.authorization, metadata: testMetadata(), client: ClientConfiguration(clientID: "c"))
        }
        #expect(time.sleeps == [.seconds(5), .seconds(5), .seconds(10)])
    }

    @Test func aDeviceRequestRefusedWithHTTP200IsTheOAuthError() {
        let response = HTTPResponse(
            status: 200,
            body: Array(
                #"{"error":"device_flow_disabled","error_description":"Device Flow must be explicitly enabled for this App"}"#
                    .utf8))
        #expect(
            throws: OIDCError.oauthError(
                OAuthErrorResponse(
                    error: "device_flow_disabled", errorDescription: "Device Flow must be explicitly enabled for this App"),
                status: 200, retryAfter: nil)
        ) { try DeviceAuthorization.parse(response, now: Date()) }
    }

    @Test func malformedDeviceAnswerIsRefused() {
        let response = HTTPResponse(status: 200, body: Array(#"{"device_code":"x"}"#.utf8))
        #expect(throws: OIDCError.self) { try DeviceAuthorization.parse(response, now: Date()) }
    }
}
