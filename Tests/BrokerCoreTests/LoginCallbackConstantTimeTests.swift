import BrokerCore
@_spi(Testing) import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import Foundation
import Synchronization
import Testing

/// docs/security.md "Loopback redirect listener": "`state` is compared in constant time". Not a
/// timing measurement: the comparison seam of `ConstantTime` records what it compared, so these
/// fail if the callback's `state` check stops going through it (a plain `==`, say).
@Suite struct LoginCallbackConstantTimeTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func pending() throws -> PendingAuthorization {
        try AuthorizationRequest.make(
            metadata: testMetadata(), client: ClientConfiguration(clientID: "c"), redirectURI: try RedirectURI(port: 49152),
            now: now
        ).pendingLogin
    }

    /// Every constant-time comparison `body` makes in this task: (left, right, result).
    func comparisons(_ body: () -> Void) -> [(String, String, Bool)] {
        let seen = Mutex<[(String, String, Bool)]>([])
        ConstantTime.$comparisonObserver.withValue(
            { a, b, equal in
                seen.withLock { $0.append((String(decoding: a, as: UTF8.self), String(decoding: b, as: UTF8.self), equal)) }
            }, operation: body)
        return seen.withLock { $0 }
    }

    func query(state: String) -> String {
        "/callback?" + FormURLEncoding.encode([FormField("code", "abc"), FormField("state", state)])
    }

    @Test func theListenersStateCheckComparesInConstantTime() throws {
        let login = try pending()
        let forged = String(login.state.dropLast()) + (login.state.hasSuffix("A") ? "B" : "A")
        var outcome: CallbackOutcome?
        let wrong = comparisons {
            var callback = LoginCallback(pendingLogin: login)
            outcome = callback.handle(target: query(state: forged), now: now)
        }
        #expect(wrong.map { [$0.0, $0.1] } == [[forged, login.state]] && wrong.first?.2 == false, "\(wrong)")
        guard case .failed(.stateMismatch, _) = outcome else {
            Issue.record("\(String(describing: outcome))")
            return
        }

        let right = comparisons {
            var callback = LoginCallback(pendingLogin: login)
            let request = HTTPRequest(method: "GET", target: query(state: login.state))
            outcome = callback.handle(request, now: now)
        }
        #expect(right.map { [$0.0, $0.1] } == [[login.state, login.state]] && right.first?.2 == true, "\(right)")
        guard case .completed = outcome else {
            Issue.record("\(String(describing: outcome))")
            return
        }
    }

    /// The pasted-URL path (`authctl login` without a browser on this machine) checks `state`
    /// the same way.
    @Test func aPastedRedirectURLsStateIsComparedInConstantTime() throws {
        let login = try pending()
        var outcome: CallbackOutcome?
        let seen = comparisons {
            var callback = LoginCallback(pendingLogin: login)
            outcome = callback.handlePasted(url: login.redirectURI.description + "?code=abc&state=" + login.state, now: now)
        }
        #expect(seen.map { [$0.0, $0.1] } == [[login.state, login.state]], "\(seen)")
        guard case .completed = outcome else {
            Issue.record("\(String(describing: outcome))")
            return
        }
    }

    /// The callback route (`authctl callback`) picks its login with `claims`, through the same seam.
    @Test func aPrivateUseRedirectIsClaimedByAConstantTimeStateComparison() throws {
        let uri = RedirectURI(privateUse: try PrivateUseRedirectURI(parsing: "shop.4242.app://callback"))
        let login = try AuthorizationRequest.make(
            metadata: testMetadata(), client: ClientConfiguration(clientID: "c"), redirectURI: uri, now: now
        ).pendingLogin
        var claimed: [Bool] = []
        let seen = comparisons {
            let callback = LoginCallback(pendingLogin: login)
            claimed = ["forged", login.state].map { callback.claims(url: "shop.4242.app://callback?code=c&state=" + $0) }
        }
        #expect(claimed == [false, true])
        #expect(seen.map { [$0.0, $0.1] } == [["forged", login.state], [login.state, login.state]], "\(seen)")
    }
}
