import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import Foundation
import Testing

@testable import BrokerCore

/// RFC 9126 in the engine, without I/O: which logins push, what the push carries (every
/// authorization parameter, the token endpoint's client authentication), what the browser URL
/// keeps (client_id and request_uri only), and which answers are refused.
@Suite struct PushedAuthorizationTests {
    static let parEndpoint = "\(testIssuer)/par"

    static func metadata(par: Bool = true, required: Bool? = nil) -> ProviderMetadata {
        var metadata = testMetadata()
        metadata.authorizationEndpoint = "\(testIssuer)/authorize?p=b2c_1_signin"
        metadata.pushedAuthorizationRequestEndpoint = par ? parEndpoint : nil
        metadata.requirePushedAuthorizationRequests = required
        return metadata
    }

    static func client(_ authentication: ClientAuthentication = .none, mode: PushedAuthorizationMode = .auto)
        -> ClientConfiguration
    {
        ClientConfiguration(
            clientID: "cli", authentication: authentication, scopes: ["openid", "offline_access"],
            resources: ["https://api.example.com"], extraParameters: [FormField("prompt", "consent")],
            pushedAuthorization: mode)
    }

    static let accepted = FakeTransport.Reply.json(
        ["request_uri": "urn:ietf:params:oauth:request_uri:6esc_11ACC5bwc014ltc14eY22c", "expires_in": 60], status: 201)

    func login(_ transport: FakeTransport, client: ClientConfiguration, metadata: ProviderMetadata = metadata())
        async throws(OIDCError) -> AuthorizationRequest
    {
        try await OIDCClient(transport: transport, time: TestTime().time).loginAuthorizationRequest(
            metadata: metadata, client: client, redirectURI: try RedirectURI(port: 49152), randomBytes: countingRandom())
    }

    @Test func thePushCarriesEveryParameterAndTheBrowserURLOnlyTheReference() async throws {
        let transport = FakeTransport([Self.parEndpoint: [Self.accepted]])
        let secret = ClientAuthentication.clientSecretBasic(Secret("s3cret"))
        let pushed = try await login(transport, client: Self.client(secret))
        // The same request unpushed, from the same randomness: what the URL would have carried.
        let plain = try AuthorizationRequest.make(
            metadata: Self.metadata(par: false), client: Self.client(secret), redirectURI: try RedirectURI(port: 49152),
            now: TestTime().now, randomBytes: countingRandom())

        let push = try #require(transport.requests.first)
        #expect(transport.requests.count == 1 && push.method == "POST" && push.url == Self.parEndpoint)
        #expect(push.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(push.headers["Authorization"] == OIDCHTTP.basicAuthorization(clientID: "cli", secret: Secret("s3cret")))
        let body = try FormURLEncoding.decode(String(decoding: push.body, as: UTF8.self))
        #expect(body == queryFields(plain.url).filter { $0.name != "p" })
        #expect(
            Set(body.map(\.name)).isSuperset(of: [
                "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
                "code_challenge_method", "resource", "prompt",
            ]))
        #expect(
            pushed.url == "\(testIssuer)/authorize?p=b2c_1_signin&client_id=cli"
                + "&request_uri=urn%3Aietf%3Aparams%3Aoauth%3Arequest_uri%3A6esc_11ACC5bwc014ltc14eY22c")
        #expect(pushed.pendingLogin == plain.pendingLogin)
    }

    @Test func aPublicClientSendsItsClientIDOnceAndAPostClientItsSecretInTheBody() async throws {
        for (authentication, secret) in [(ClientAuthentication.none, nil), (.clientSecretPost(Secret("s3cret")), "s3cret")] {
            let transport = FakeTransport([Self.parEndpoint: [Self.accepted]])
            _ = try await login(transport, client: Self.client(authentication))
            let body = try FormURLEncoding.decode(String(decoding: try #require(transport.requests.first).body, as: UTF8.self))
            #expect(body.filter { $0.name == "client_id" }.map(\.value) == ["cli"])
            #expect(body.first { $0.name == "client_secret" }?.value == secret)
            #expect(transport.requests.first?.headers["Authorization"] == nil)
        }
    }

    @Test func whetherALoginPushesFollowsTheModeAndTheMetadata() throws {
        let listed = Self.metadata()
        let absent = Self.metadata(par: false)
        #expect(try PushedAuthorization.endpoint(mode: .auto, metadata: listed)?.string == Self.parEndpoint)
        #expect(try PushedAuthorization.endpoint(mode: .always, metadata: listed)?.string == Self.parEndpoint)
        #expect(try PushedAuthorization.endpoint(mode: .auto, metadata: absent) == nil)
        #expect(try PushedAuthorization.endpoint(mode: .never, metadata: listed) == nil)
        #expect(try PushedAuthorization.endpoint(mode: .never, metadata: Self.metadata(required: false)) == nil)
        #expect(
            try PushedAuthorization.endpoint(mode: .auto, metadata: Self.metadata(required: true))?.string == Self.parEndpoint)

        let always = #expect(throws: OIDCError.self) { try PushedAuthorization.endpoint(mode: .always, metadata: absent) }
        #expect(always?.description.contains("--par always") == true && always?.description.contains("--par-endpoint") == true)
        let never = #expect(throws: OIDCError.self) {
            try PushedAuthorization.endpoint(mode: .never, metadata: Self.metadata(required: true))
        }
        #expect(never?.description.contains("require_pushed_authorization_requests") == true, "\(String(describing: never))")
        #expect(never?.description.contains("--par auto") == true)
        #expect(throws: OIDCError.missingEndpoint(.pushedAuthorizationRequest)) {
            try PushedAuthorization.endpoint(mode: .auto, metadata: Self.metadata(par: false, required: true))
        }
        var insecure = listed
        insecure.pushedAuthorizationRequestEndpoint = "http://as.example.com/par"
        #expect(throws: OIDCError.self) { try PushedAuthorization.endpoint(mode: .auto, metadata: insecure) }
    }

    @Test func aLoginThatDoesNotPushSendsNothingAndKeepsTheFullURL() async throws {
        let transport = FakeTransport()
        let request = try await login(transport, client: Self.client(mode: .never))
        #expect(transport.requests.isEmpty)
        #expect(queryFields(request.url).contains { $0.name == "code_challenge" })
        #expect(!queryFields(request.url).contains { $0.name == "request_uri" })
    }

    @Test func providerErrorsAreRefusalsOfTheLogin() async throws {
        let cases: [(FakeTransport.Reply, String)] = [
            (
                .json(["error": "invalid_client", "error_description": "client authentication failed"], status: 401),
                "invalid_client (pushed authorization request, HTTP 401: client authentication failed)"
            ),
            (
                .json(["error": "invalid_request", "error_description": "bad redirect_uri"], status: 400),
                "invalid_request (pushed authorization request, HTTP 400: bad redirect_uri)"
            ),
            (.status(503, body: "<html>down</html>"), "pushed_authorization_request_endpoint answered HTTP 503"),
        ]
        for (reply, text) in cases {
            let transport = FakeTransport([Self.parEndpoint: [reply]])
            let error = await #expect(throws: OIDCError.self) { try await login(transport, client: Self.client()) }
            #expect(error?.description.contains(text) == true, "\(String(describing: error))")
        }
    }

    @Test func malformedAnswersAreRefused() throws {
        let long = "urn:ietf:params:oauth:request_uri:" + String(repeating: "a", count: 1024)
        let bodies: [Any] = [
            ["expires_in": 60], ["request_uri": 7, "expires_in": 60], ["request_uri": "relative/ref", "expires_in": 60],
            ["request_uri": "urn:x y", "expires_in": 60], ["request_uri": "urn:x\u{7}", "expires_in": 60],
            ["request_uri": "urn:", "expires_in": 60], ["request_uri": "1urn:x", "expires_in": 60],
            ["request_uri": ":x", "expires_in": 60], ["request_uri": "urn:ü", "expires_in": 60],
            ["request_uri": long, "expires_in": 60], ["request_uri": "urn:x"], ["request_uri": "urn:x", "expires_in": 0],
            ["request_uri": "urn:x", "expires_in": -5], ["request_uri": "urn:x", "expires_in": 1.5],
            ["request_uri": "urn:x", "expires_in": "sixty"], ["request_uri": "urn:x", "expires_in": 86_401],
            ["urn:x"],
        ]
        for body in bodies {
            let data = try JSONSerialization.data(withJSONObject: body)
            let response = HTTPResponse(status: 201, body: Array(data))
            #expect(throws: OIDCError.self, "\(body)") { try PushedAuthorization.parse(response, now: Date()) }
        }
        let html = HTTPResponse(status: 201, headers: HTTPHeaders([("Content-Type", "text/html")]), body: Array("<html>".utf8))
        #expect(throws: OIDCError.self) { try PushedAuthorization.parse(html, now: Date()) }
        let deep = HTTPResponse(status: 201, body: Array((String(repeating: "[", count: 10_000)).utf8))
        #expect(throws: OIDCError.self) { try PushedAuthorization.parse(deep, now: Date()) }
    }

    @Test func wellFormedAnswersAreRead() throws {
        for (status, uri, seconds) in [
            (201, "urn:ietf:params:oauth:request_uri:bwc4JK-ESC0w8acc191e-Y1LTC2", 90), (200, "https://as.example/r/1", 1),
            (201, "urn:x", 86_400),
        ] {
            let data = try JSONSerialization.data(withJSONObject: ["request_uri": uri, "expires_in": seconds])
            let answer = try PushedAuthorization.parse(HTTPResponse(status: status, body: Array(data)), now: Date())
            #expect(answer == PushedAuthorization.Answer(requestURI: uri, expiresIn: seconds))
        }
    }
}
