import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import Foundation
import Testing

@testable import BrokerCore

/// A `LoginSession` for a private-use scheme redirect: no listener; the redirect URL comes back
/// through `completeWithRedirect` (the callback route) and the session ends exactly like a
/// loopback one — including by its deadline and by cancel, which have no listener to close.
@Suite(.timeLimit(.minutes(1))) struct LoginSessionPrivateUseTests {
    static let redirect = "shop.4242.app://callback"

    static func start(timeout: Duration = .seconds(60)) async throws -> (LoginSession, FakeTransport) {
        let transport = LoginSessionTests.tokenTransport()
        let session = try await LoginSession.start(
            client: OIDCClient(transport: transport), metadata: testMetadata(), configuration: LoginSessionTests.plainOAuth,
            privateUse: try PrivateUseRedirectURI(parsing: redirect), timeout: timeout)
        return (session, transport)
    }

    @Test func theRedirectCompletesTheLoginAndTheExchangeSendsTheSameURI() async throws {
        let (session, transport) = try await Self.start()
        #expect(queryFields(session.authorizationURL).contains(FormField("redirect_uri", Self.redirect)))
        let url = "\(Self.redirect)?code=c-1&state=\(LoginSessionTests.state(of: session))"
        #expect(session.claimsRedirect(url) && !session.claimsRedirect(Self.redirect + "?code=c-1&state=other"))
        let result = await session.completeWithRedirect(url)
        #expect(try result.get().tokens.accessToken == Secret("at-1"))
        #expect(await session.result() == result)
        let exchange = try #require(transport.requests.last)
        #expect(formFields(exchange.body)["redirect_uri"] == Self.redirect && formFields(exchange.body)["code"] == "c-1")
        #expect(await session.completeWithRedirect(url) == .failure(.loginAlreadyFinished), "a replay is refused")
        #expect(await session.completeWithPastedURL(url) == result, "a pasted replay answers how the login ended")
        #expect(transport.requests.count == 1)
    }

    @Test func theDeadlineAndCancelEndALoginWithoutAListener() async throws {
        let (expiring, _) = try await Self.start(timeout: .milliseconds(200))
        #expect(await expiring.result() == .failure(.loginExpired))
        let (cancelled, _) = try await Self.start()
        cancelled.cancel()
        #expect(await cancelled.result() == .failure(.cancelled))
    }
}
