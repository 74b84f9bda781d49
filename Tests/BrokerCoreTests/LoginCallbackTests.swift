import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import Testing

@Suite struct LoginCallbackTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func pending(requireIss: Bool = false) throws -> PendingAuthorization {
        var metadata = testMetadata()
        metadata.authorizationResponseIssParameterSupported = requireIss
        return try AuthorizationRequest.make(
            metadata: metadata, client: ClientConfiguration(clientID: "c"), redirectURI: try RedirectURI(port: 49152),
            now: now
        ).pendingLogin
    }

    func target(_ fields: [(String, String)], path: String = "/callback") -> String {
        path + "?" + FormURLEncoding.encode(fields.map { FormField($0.0, $0.1) })
    }

    func expectFailure(_ outcome: CallbackOutcome, _ expected: OIDCError, sourceLocation: SourceLocation = #_sourceLocation) {
        guard case .failed(let error, let response) = outcome else {
            Issue.record("expected failure \(expected), got \(outcome)", sourceLocation: sourceLocation)
            return
        }
        #expect(error == expected, sourceLocation: sourceLocation)
        #expect(response.status == 400, sourceLocation: sourceLocation)
    }

    @Test func validCallbackCompletesWithTheCode() throws {
        let login = try pending(requireIss: true)
        var callback = LoginCallback(pendingLogin: login)
        let outcome = callback.handle(target: target([("code", "abc"), ("state", login.state), ("iss", testIssuer)]), now: now)
        guard case .completed(let code, let response) = outcome else {
            Issue.record("not completed: \(outcome)")
            return
        }
        #expect(code == Secret("abc"))
        #expect(response.status == 200 && response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(callback.isFinished)
    }

    @Test func wrongStateIsRefused() throws {
        var callback = LoginCallback(pendingLogin: try pending())
        expectFailure(callback.handle(target: target([("code", "abc"), ("state", "forged")]), now: now), .stateMismatch)
        expectFailure(
            LoginCallback(pendingLogin: try pending()).handlingCopy(target: target([("code", "abc")]), now: now),
            .stateMismatch)
    }

    @Test func missingCodeIsRefused() throws {
        let login = try pending()
        var callback = LoginCallback(pendingLogin: login)
        expectFailure(callback.handle(target: target([("state", login.state)]), now: now), .missingCode)
    }

    @Test func replayedCallbackIsRefused() throws {
        let login = try pending()
        var callback = LoginCallback(pendingLogin: login)
        let valid = target([("code", "abc"), ("state", login.state)])
        guard case .completed = callback.handle(target: valid, now: now) else {
            Issue.record("first must complete")
            return
        }
        expectFailure(callback.handle(target: valid, now: now), .loginAlreadyFinished)
    }

    @Test func wrongIssIsRefused() throws {
        let login = try pending()
        var callback = LoginCallback(pendingLogin: login)
        expectFailure(
            callback.handle(
                target: target([("code", "abc"), ("state", login.state), ("iss", "https://evil.example")]), now: now),
            .callbackIssuerMismatch(expected: testIssuer, found: "https://evil.example"))
    }

    @Test func missingIssIsRefusedOnlyWhenRequired() throws {
        let strict = try pending(requireIss: true)
        var callback = LoginCallback(pendingLogin: strict)
        expectFailure(
            callback.handle(target: target([("code", "abc"), ("state", strict.state)]), now: now), .callbackIssuerMissing)
        let lax = try pending(requireIss: false)
        var laxCallback = LoginCallback(pendingLogin: lax)
        guard case .completed = laxCallback.handle(target: target([("code", "abc"), ("state", lax.state)]), now: now) else {
            Issue.record("iss is optional when not promised")
            return
        }
    }

    @Test func accessDeniedEndsTheLoginWithTheProvidersWordsEscaped() throws {
        let login = try pending()
        var callback = LoginCallback(pendingLogin: login)
        let outcome = callback.handle(
            target: target([("error", "access_denied"), ("error_description", "<script>x</script>"), ("state", login.state)]),
            now: now)
        expectFailure(outcome, .authorizationFailed(error: "access_denied", description: "<script>x</script>"))
        let html = String(decoding: outcome.response.body, as: UTF8.self)
        #expect(html.contains("&lt;script&gt;x&lt;/script&gt;") && !html.contains("<script>"))
    }

    @Test func otherPathsAreNotForUsAndDoNotConsumeTheState() throws {
        let login = try pending()
        var callback = LoginCallback(pendingLogin: login)
        guard case .notForUs(let response) = callback.handle(target: "/favicon.ico", now: now) else {
            Issue.record("favicon must not be handled")
            return
        }
        #expect(response.status == 404 && !callback.isFinished)
        let post = HTTPRequest(method: "POST", target: target([("code", "abc"), ("state", login.state)]))
        guard case .notForUs(let notAllowed) = callback.handle(post, now: now) else {
            Issue.record("POST must be refused")
            return
        }
        #expect(notAllowed.status == 405 && !callback.isFinished)
        let get = HTTPRequest(method: "GET", target: target([("code", "abc"), ("state", login.state)]))
        guard case .completed = callback.handle(get, now: now) else {
            Issue.record("then the real callback completes")
            return
        }
    }

    @Test func expiredLoginIsRefused() throws {
        let login = try pending()
        var callback = LoginCallback(pendingLogin: login)
        expectFailure(
            callback.handle(target: target([("code", "abc"), ("state", login.state)]), now: now.addingTimeInterval(301)),
            .loginExpired)
    }

    @Test func repeatedParameterIsRefused() throws {
        let login = try pending()
        var callback = LoginCallback(pendingLogin: login)
        let outcome = callback.handle(target: target([("code", "a"), ("code", "b"), ("state", login.state)]), now: now)
        guard case .failed(.malformedCallback, _) = outcome else {
            Issue.record("expected malformedCallback: \(outcome)")
            return
        }
    }

    @Test func pastedURLIsAcceptedWhenItIsOurRedirect() throws {
        let login = try pending()
        var callback = LoginCallback(pendingLogin: login)
        guard case .notForUs = callback.handlePasted(url: "http://127.0.0.1:49153/callback?code=a&state=\(login.state)", now: now)
        else {
            Issue.record("other port is not ours")
            return
        }
        guard case .notForUs = callback.handlePasted(url: "not a url", now: now) else {
            Issue.record("garbage")
            return
        }
        let pasted = "  http://127.0.0.1:49152/callback?code=abc&state=\(login.state)\n"
        guard case .completed(let code, _) = callback.handlePasted(url: pasted, now: now) else {
            Issue.record("pasted redirect must complete")
            return
        }
        #expect(code == Secret("abc"))
    }

    /// `authctl callback` and the paste reach a loopback login through the callback route, which
    /// asks `claims`: exactly the bound origin and path with this login's state, nothing else.
    @Test func aLoopbackLoginClaimsOnlyItsOwnOriginPathAndState() throws {
        let login = try pending()
        let callback = LoginCallback(pendingLogin: login)
        let ours = "http://127.0.0.1:49152/callback?code=abc&state=\(login.state)"
        #expect(callback.claims(url: ours) && callback.claims(url: " " + ours + "\n"))
        for other in [
            "http://127.0.0.1:49153/callback?code=abc&state=\(login.state)",
            "http://localhost:49152/callback?code=abc&state=\(login.state)",
            "https://127.0.0.1:49152/callback?code=abc&state=\(login.state)",
            "http://127.0.0.1:49152/callback/x?code=abc&state=\(login.state)",
            "http://evil.example:49152/callback?code=abc&state=\(login.state)",
            "http://127.0.0.1:49152/callback?code=abc&state=forged",
            "http://127.0.0.1:49152/callback?code=abc",
            "shop.4242.app://callback?code=abc&state=\(login.state)",
        ] {
            #expect(!callback.claims(url: other), "\(other)")
        }
        #expect(!callback.isFinished, "asking must not consume the login")
    }
}

extension LoginCallback {
    /// Handles on a copy, for one-shot checks.
    func handlingCopy(target: String, now: Date) -> CallbackOutcome {
        var copy = self
        return copy.handle(target: target, now: now)
    }
}
