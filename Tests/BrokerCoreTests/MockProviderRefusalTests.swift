import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import MockProvider
import Testing

/// Redirects and provider answers the login flow must refuse, over real sockets.
@Suite struct MockProviderRefusalTests {
    static func state(of session: LoginSession) -> String {
        queryFields(session.authorizationURL).first { $0.name == "state" }?.value ?? ""
    }

    @Test func forgedRedirectsEndTheLoginWithTheirError() async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        let cases: [(String, OIDCError)] = [
            ("?code=c&state=forged", .stateMismatch),
            ("?state=STATE&iss=ISSUER", .missingCode),
            ("?code=c&state=STATE", .callbackIssuerMissing),  // the metadata promised iss
        ]
        for (query, expected) in cases {
            let session = try await harness.startLogin()
            let target = query.replacingOccurrences(of: "STATE", with: Self.state(of: session))
                .replacingOccurrences(of: "ISSUER", with: harness.provider.issuer)
            let page = try await browserGet(session.redirectURI.description + target)
            #expect(page.status == 400)
            #expect(await session.result() == .failure(expected))
        }
        #expect(harness.provider.stats.codeExchanges == 0)
    }

    @Test func strayRequestsDoNotConsumeTheLoginAndReplaysAreRefused() async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        let session = try await harness.startLogin()
        let port = session.redirectURI.port
        #expect(try await browserGet("http://127.0.0.1:\(port)/favicon.ico").status == 404)
        #expect(try await browserGet("http://127.0.0.1:\(port)/callback/x?code=1").status == 404)
        let authorize = try await browserGet(session.authorizationURL)
        let callback = try #require(authorize.headers["Location"])
        #expect(try await browserGet(callback).status == 200)
        let first = await session.result()
        #expect(first.isSuccess)
        // The same redirect again: the listener is gone, and a paste reports the original outcome
        // without a second code exchange.
        await #expect(throws: HTTPClientError.self) { try await browserGet(callback) }
        #expect(await session.completeWithPastedURL(callback) == first)
        #expect(harness.provider.stats.codeExchanges == 1)
    }

    @Test func providerRefusalsAndMixUpsAreRefused() async throws {
        var denied = MockProviderConfiguration()
        denied.denyConsent = true
        var mixUp = MockProviderConfiguration()
        mixUp.authorizationResponseIssuer = "https://evil.example"
        for knobs in [denied, mixUp] {
            let harness = try await MockProviderHarness(knobs)
            let (result, page) = try await harness.login()
            #expect(page.status == 400)
            switch result {
            case .failure(.authorizationFailed(let error, _)): #expect(knobs.denyConsent && error == "access_denied")
            case .failure(.callbackIssuerMismatch(_, let found)): #expect(found == "https://evil.example")
            default: Issue.record("unexpected \(result)")
            }
            #expect(harness.provider.stats.codeExchanges == 0)
            await harness.stop()
        }
    }

    @Test func discoveryWithAnotherIssuerIsRefused() async throws {
        var knobs = MockProviderConfiguration()
        knobs.discoveryIssuer = "https://id.example.com"
        let provider = try MockProvider(configuration: knobs)
        defer { Task { await provider.stop() } }
        let client = OIDCClient(transport: try MockProviderHarness.httpClient())
        await #expect(throws: OIDCError.issuerMismatch(expected: provider.issuer, found: "https://id.example.com")) {
            try await client.discover(issuer: provider.issuer)
        }
    }

    @Test func deadlineExpiryEndsTheLoginAndClosesTheListener() async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        let session = try await harness.startLogin(timeout: .milliseconds(300))
        #expect(await session.result() == .failure(.loginExpired))
        await #expect(throws: HTTPClientError.self) {
            try await browserGet("\(session.redirectURI)?code=c&state=\(Self.state(of: session))")
        }
        #expect(harness.provider.stats.codeExchanges == 0)
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
