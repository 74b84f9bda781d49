import BrokerCore
import BrokerHTTP
import Foundation
import Testing

@Suite struct ErrorClassificationTests {
    static let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    static func oauth(_ code: String, status: Int = 400, retryAfter: Duration? = nil) -> OIDCError {
        .oauthError(OAuthErrorResponse(error: code), status: status, retryAfter: retryAfter)
    }

    static let table: [(OIDCError, FailureDisposition)] = [
        (oauth("invalid_grant"), .terminal),
        (oauth("invalid_client", status: 401), .terminal),
        (oauth("unauthorized_client"), .terminal),
        (oauth("unsupported_grant_type"), .terminal),
        (oauth("invalid_scope"), .terminal),
        (oauth("temporarily_unavailable"), .transient(retryAfter: nil)),
        (oauth("server_error", status: 500), .transient(retryAfter: nil)),
        (oauth("invalid_grant", status: 503, retryAfter: .seconds(7)), .transient(retryAfter: .seconds(7))),
        (.httpStatus(408, endpoint: "t", retryAfter: nil), .transient(retryAfter: nil)),
        (.httpStatus(429, endpoint: "t", retryAfter: .seconds(30)), .transient(retryAfter: .seconds(30))),
        (.httpStatus(500, endpoint: "t", retryAfter: nil), .transient(retryAfter: nil)),
        (.httpStatus(502, endpoint: "t", retryAfter: nil), .transient(retryAfter: nil)),
        (.httpStatus(503, endpoint: "t", retryAfter: .seconds(120)), .transient(retryAfter: .seconds(120))),
        // A redirect is never followed and says nothing about the grant (captive portal, proxy).
        (.httpStatus(302, endpoint: "t", retryAfter: nil), .transient(retryAfter: nil)),
        (.httpStatus(307, endpoint: "t", retryAfter: nil), .transient(retryAfter: nil)),
        (oauth("invalid_grant", status: 302), .transient(retryAfter: nil)),
        (.idToken(.unknownKeyRefetchDeferred(kid: "k", retryAfter: .seconds(42))), .transient(retryAfter: .seconds(42))),
        (.idToken(.unknownKey(kid: "k")), .terminal),
        // The broker's own vault failing to give the stored ID token never costs the grant.
        (.storage("disk I/O error"), .transient(retryAfter: nil)),
        (.httpStatus(401, endpoint: "t", retryAfter: nil), .terminal),
        (.httpStatus(404, endpoint: "t", retryAfter: nil), .terminal),
        (.transport(.dnsFailure(host: "h", reason: "r")), .transient(retryAfter: nil)),
        (.transport(.connectFailure(host: "h", port: 443, reason: "refused")), .transient(retryAfter: nil)),
        (.transport(.timeout("read")), .transient(retryAfter: nil)),
        (.transport(.tls(.untrustedIssuer(host: "h", detail: "d"))), .transient(retryAfter: nil)),
        // A pin mismatch keeps the tokens and is retried (and logged) like any TLS failure.
        (.transport(.tls(.pinMismatch(host: "h"))), .transient(retryAfter: nil)),
        (.transport(.protocolError("eof")), .transient(retryAfter: nil)),
        (.transport(.tooLarge(limit: 1)), .transient(retryAfter: nil)),
        (.transport(.invalidURL("x")), .terminal),
        (.malformedResponse(endpoint: "t", reason: "html"), .transient(retryAfter: nil)),
        (.unsupportedTokenType("mac"), .terminal),
        (.idToken(.subjectChanged), .terminal),
    ]

    @Test(arguments: table.indices)
    func classification(index: Int) {
        let (error, expected) = Self.table[index]
        #expect(error.disposition == expected, "\(error)")
    }

    @Test func bodyShapesBecomeTheRightErrors() throws {
        let cases: [(HTTPResponse, FailureDisposition)] = [
            (HTTPResponse(status: 200, body: Array("<html>portal</html>".utf8)), .transient(retryAfter: nil)),
            (HTTPResponse(status: 400, body: Array(#"{"error":"invalid_grant"}"#.utf8)), .terminal),
            (HTTPResponse(status: 503, headers: HTTPHeaders([("Retry-After", "5")])), .transient(retryAfter: .seconds(5))),
            (
                HTTPResponse(status: 429, headers: HTTPHeaders([("Retry-After", "Sun, 06 Nov 1994 08:50:37 GMT")])),
                .transient(retryAfter: .seconds(60))
            ),
        ]
        for (response, expected) in cases {
            do {
                _ = try TokenResponse.parse(response, now: Self.now)
                Issue.record("status \(response.status) must fail")
            } catch {
                #expect(error.disposition == expected)
            }
        }
    }

    @Test func retryAfterDeltaSeconds() {
        #expect(RetryAfter.parse("120", now: Self.now) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", now: Self.now) == .zero)
        #expect(RetryAfter.parse("99999999999999999999", now: Self.now) == RetryAfter.maximum)
        #expect(RetryAfter.parse("-5", now: Self.now) == nil)
        #expect(RetryAfter.parse("1.5", now: Self.now) == nil)
        #expect(RetryAfter.parse("", now: Self.now) == nil)
    }

    @Test func retryAfterHTTPDateInAllThreeForms() {
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:51:37 GMT", now: Self.now) == .seconds(120))
        #expect(RetryAfter.parse("Sunday, 06-Nov-94 08:51:37 GMT", now: Self.now) == .seconds(120))
        #expect(RetryAfter.parse("Sun Nov  6 08:51:37 1994", now: Self.now) == .seconds(120))
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:00:00 GMT", now: Self.now) == .zero)
        #expect(RetryAfter.parse("Sun, 06 Foo 1994 08:51:37 GMT", now: Self.now) == nil)
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 25:51:37 GMT", now: Self.now) == nil)
        #expect(RetryAfter.parse("tomorrow", now: Self.now) == nil)
    }
}
