import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import Testing

/// The loopback redirect flow against a canned token endpoint (the full provider cycle is in
/// MockProviderLoginTests). The test plays the browser with the project's HTTP client.
@Suite struct LoginSessionTests {
    static let plainOAuth = ClientConfiguration(clientID: "cli", scopes: ["read"])

    static func tokenTransport() -> FakeTransport {
        let transport = FakeTransport()
        transport.on("\(testIssuer)/token", .json(["access_token": "at-1", "token_type": "Bearer", "expires_in": 60]))
        return transport
    }

    static func get(_ url: String) async throws -> HTTPResponse {
        try await HTTPClient(configuration: HTTPClientConfiguration(totalTimeout: .seconds(10), maxIdleConnectionsPerHost: 0))
            .send(HTTPClientRequest(url: url))
    }

    static func state(of session: LoginSession) -> String {
        queryFields(session.authorizationURL).first { $0.name == "state" }?.value ?? ""
    }

    @Test func callbackCompletesTheLoginAndClosesTheListener() async throws {
        let transport = Self.tokenTransport()
        let session = try await LoginSession.start(
            client: OIDCClient(transport: transport), metadata: testMetadata(), configuration: Self.plainOAuth)
        let redirect = session.redirectURI
        #expect(redirect.host == .ipv4 && redirect.path == "/callback" && redirect.port > 0)
        #expect(queryFields(session.authorizationURL).contains(FormField("redirect_uri", redirect.description)))
        #expect(session.outcome == nil)

        let stray = try await Self.get("http://127.0.0.1:\(redirect.port)/favicon.ico")
        #expect(stray.status == 404)
        let page = try await Self.get("\(redirect)?code=c-1&state=\(Self.state(of: session))")
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("Signed in"))

        let result = try await session.result().get()
        #expect(result.tokens.accessToken == Secret("at-1") && result.subject == nil)
        let exchange = try #require(transport.requests.last)
        #expect(formFields(exchange.body)["code"] == "c-1")
        #expect(formFields(exchange.body)["redirect_uri"] == redirect.description)
        await #expect(throws: HTTPClientError.self) { try await Self.get(redirect.description) }
    }

    @Test func cancelEndsTheLoginAndPastedURLIsChecked() async throws {
        let session = try await LoginSession.start(
            client: OIDCClient(transport: Self.tokenTransport()), metadata: testMetadata(), configuration: Self.plainOAuth,
            redirect: LoopbackRedirect(host: .localhost, path: "/cb"))
        #expect(session.redirectURI.description.hasPrefix("http://localhost:"))
        let wrong = await session.completeWithPastedURL("http://127.0.0.1:1/cb?code=x&state=y")
        guard case .failure(.malformedCallback) = wrong else { Issue.record("unexpected \(wrong)"); return }
        #expect(session.outcome == nil)
        session.cancel()
        #expect(await session.result() == .failure(.cancelled))
        let late = await session.completeWithPastedURL("\(session.redirectURI)?code=x&state=\(Self.state(of: session))")
        #expect(late == .failure(.cancelled))
    }

    @Test func pastedURLCompletesTheLogin() async throws {
        let session = try await LoginSession.start(
            client: OIDCClient(transport: Self.tokenTransport()), metadata: testMetadata(), configuration: Self.plainOAuth)
        let result = await session.completeWithPastedURL(" \(session.redirectURI)?code=c&state=\(Self.state(of: session))\n")
        #expect(try result.get().tokens.accessToken == Secret("at-1"))
        #expect(await session.result() == result)
    }

    @Test func invalidRedirectSettingsAreRefusedBeforeBinding() async throws {
        let client = OIDCClient(transport: FakeTransport())
        for redirect in [LoopbackRedirect(port: 70_000), LoopbackRedirect(path: "callback"), LoopbackRedirect(path: "/a b")] {
            await #expect(throws: OIDCError.self) {
                try await LoginSession.start(client: client, metadata: testMetadata(), configuration: Self.plainOAuth, redirect: redirect)
            }
        }
    }
}
