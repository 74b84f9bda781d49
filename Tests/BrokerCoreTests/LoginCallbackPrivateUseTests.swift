import BrokerCore
import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import Foundation
import Testing

/// `LoginCallback` for a private-use scheme redirect (RFC 8252 §7.1): the URL `authctl callback`
/// hands over is claimed only by the login whose redirect and state it carries, then checked like
/// a loopback redirect (iss, error, code, replay).
@Suite struct LoginCallbackPrivateUseTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let redirect = "shop.4242.app://callback"

    func pending(requireIss: Bool = true) throws -> PendingAuthorization {
        var metadata = testMetadata()
        metadata.authorizationResponseIssParameterSupported = requireIss
        let uri = RedirectURI(privateUse: try PrivateUseRedirectURI(parsing: Self.redirect))
        return try AuthorizationRequest.make(
            metadata: metadata, client: ClientConfiguration(clientID: "c"), redirectURI: uri, now: now
        ).pendingLogin
    }

    func url(_ fields: [(String, String)], base: String = redirect) -> String {
        base + "?" + FormURLEncoding.encode(fields.map { FormField($0.0, $0.1) })
    }

    @Test func theAuthorizationRequestSendsExactlyTheConfiguredURI() throws {
        let uri = RedirectURI(privateUse: try PrivateUseRedirectURI(parsing: Self.redirect))
        let request = try AuthorizationRequest.make(
            metadata: testMetadata(), client: ClientConfiguration(clientID: "c"), redirectURI: uri, now: now)
        let query = try #require(request.url.split(separator: "?", maxSplits: 1).last)
        let fields = try FormURLEncoding.decode(query)
        #expect(fields.filter { $0.name == "redirect_uri" }.map(\.value) == [Self.redirect])
        #expect(request.pendingLogin.redirectURI.description == Self.redirect)
    }

    @Test func onlyTheLoginsOwnRedirectAndStateClaimAURL() throws {
        let login = try pending()
        let callback = LoginCallback(pendingLogin: login)
        #expect(callback.claims(url: url([("code", "c"), ("state", login.state), ("iss", testIssuer)])))
        #expect(!callback.claims(url: url([("code", "c"), ("state", "another-logins-state")])))
        #expect(!callback.claims(url: url([("code", "c")])))
        #expect(!callback.claims(url: url([("state", login.state)], base: "shop.4242.app://other")))
        #expect(!callback.claims(url: url([("state", login.state)], base: "shop.4243.app://callback")))
        #expect(!callback.claims(url: url([("state", login.state)], base: "shop.4242.app://callback/x")))
        let loopback = try AuthorizationRequest.make(
            metadata: testMetadata(), client: ClientConfiguration(clientID: "c"), redirectURI: try RedirectURI(port: 49152),
            now: now
        ).pendingLogin
        // A loopback login claims its own pasted redirect (LoginCallbackTests), never a private-use one.
        #expect(
            !LoginCallback(pendingLogin: loopback).claims(
                url: "shop.4242.app://callback?state=\(loopback.state)&code=c"), "a loopback login took a private-use URL")
    }

    @Test func aValidRedirectCompletesOnceAndIsThenAReplay() throws {
        let login = try pending()
        var callback = LoginCallback(pendingLogin: login)
        let valid = url([("code", "the-code"), ("state", login.state), ("iss", testIssuer)])
        guard case .completed(let code, _) = callback.handlePasted(url: valid, now: now) else {
            Issue.record("must complete")
            return
        }
        #expect(code == Secret("the-code"))
        guard case .failed(.loginAlreadyFinished, _) = callback.handlePasted(url: valid, now: now) else {
            Issue.record("a second use must be refused")
            return
        }
    }

    @Test func wrongHostOrPathIsNotForThisLogin() throws {
        let login = try pending()
        var callback = LoginCallback(pendingLogin: login)
        for base in ["shop.4242.app://callbackx", "shop.4242.app:/callback", "http://127.0.0.1:1/callback"] {
            guard case .notForUs = callback.handlePasted(url: url([("code", "c"), ("state", login.state)], base: base), now: now)
            else {
                Issue.record("\(base) must not touch the login")
                return
            }
        }
        #expect(!callback.isFinished)
    }

    @Test(
        arguments: [
            ([("error", "access_denied")], OIDCError.authorizationFailed(error: "access_denied", description: nil)),
            ([("code", "c")], OIDCError.callbackIssuerMissing),
            (
                [("code", "c"), ("iss", "https://evil.example")],
                OIDCError.callbackIssuerMismatch(expected: testIssuer, found: "https://evil.example")
            ),
        ] as [([(String, String)], OIDCError)])
    func providerErrorsAndIssuerProblemsEndTheLogin(extra: [(String, String)], expected: OIDCError) throws {
        let login = try pending()
        var callback = LoginCallback(pendingLogin: login)
        var fields = [("state", login.state)] + extra
        if expected.isAuthorizationFailure { fields.append(("iss", testIssuer)) }
        guard case .failed(let error, _) = callback.handlePasted(url: url(fields), now: now) else {
            Issue.record("must fail with \(expected)")
            return
        }
        #expect(error == expected)
        #expect(callback.isFinished)
    }
}

extension OIDCError {
    fileprivate var isAuthorizationFailure: Bool {
        if case .authorizationFailed = self { return true }
        return false
    }
}
