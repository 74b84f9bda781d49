import Testing

@testable import AuthctlCommands

/// `authctl curl` reads curl's header dump for a step-up (403 `insufficient_scope`) to report.
struct CurlStepUpTests {
    @Test func theLastResponsesInsufficientScopeIsAStepUp() {
        let dump =
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\n"
            + "WWW-Authenticate: DPoP algs=\"ES256\", Bearer error=\"insufficient_scope\", scope=\"read write\"\r\n\r\n"
        #expect(NonceChallenge.stepUp(in: dump)?.scopes == ["read", "write"])
    }

    @Test func anythingElseIsNot() {
        let challenge = "WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"read\"\r\n\r\n"
        #expect(NonceChallenge.stepUp(in: "HTTP/1.1 401 Unauthorized\r\n" + challenge) == nil)
        #expect(NonceChallenge.stepUp(in: "HTTP/1.1 403 Forbidden\r\n\r\nHTTP/1.1 200 OK\r\n" + challenge) == nil)
        #expect(
            NonceChallenge.stepUp(in: "HTTP/1.1 403 Forbidden\r\nWWW-Authenticate: Bearer error=\"invalid_token\"\r\n\r\n") == nil
        )
    }
}
