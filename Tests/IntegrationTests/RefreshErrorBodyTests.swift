import Foundation
import Testing

/// Issue 12, defect 7, with the real binaries: a refresh answered by something that is not a real
/// grant rejection — a proxy's HTML page, a captive portal, an error body that is no RFC 6749 §5.2
/// object — keeps the refresh token: the daemon serves the still-valid token, retries, and the same
/// refresh token works once the fault is gone (no new login). A real `invalid_grant` drops it.
/// Serialized: seven daemon + provider pairs at once would crowd a loaded 2-core machine.
@Suite(.serialized) struct RefreshErrorBodyTests {
    /// One injected answer (a `MockFault` as JSON) per class of error body.
    static let faults: [String] = [
        #"{"kind": "html", "status": 502}"#,
        #"{"kind": "html", "status": 200}"#,
        #"{"kind": "html", "status": 403}"#,
        #"{"kind": "raw", "status": 400, "body": "{\"error\": {\"code\": 400, \"message\": \"bad\"}}"}"#,
        #"{"kind": "raw", "status": 400, "body": "{\"error\": \"invalid_gr"}"#,
        #"{"kind": "raw", "status": 400, "body": "{\"error\": \"invalid_request\", \"error_description\": \"\#(String(repeating: "ü", count: 5000))\\u001b[2J\"}"}"#,
    ]

    /// Signs in with 20-second tokens and waits until the token is no longer brand new (2 s), so
    /// `--min-ttl 19` asks for a refresh at once.
    static func signedIn() async throws -> (BrokerHarness, MockProviderProcess, String) {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"accessTokenLifetime": 20}"#)
        try await harness.signIn("work", provider: provider)
        let token = try await harness.token("work")
        try await Task.sleep(for: .milliseconds(2200))
        return (harness, provider, token)
    }

    @Test(.timeLimit(.minutes(1)), arguments: faults)
    func theRefreshTokenSurvivesAnAnswerThatIsNoGrantRejection(fault: String) async throws {
        let (harness, provider, first) = try await Self.signedIn()
        try await provider.configure(#"{"faults": {"token": \#(fault.dropLast()), "remaining": 1}}}"#)

        // The forced refresh meets the fault: the still-valid token is served, nothing is deleted.
        let during = try await harness.authctl(["token", "work", "--min-ttl", "19"])
        #expect(during.status == 0 && during.line == first, "\(during)\n\(harness.daemonLog)")
        #expect(try await provider.configurationJSON.contains(#""remaining":0"#), "the fault was never hit")
        #expect(harness.daemonLog.contains("refresh failed, will retry"), "\(harness.daemonLog)")
        #expect(!harness.daemonLog.contains("rejected the refresh"))

        // The retry (after about a second) uses the same refresh token, which still works.
        var next = first
        let refreshed = try await SpawnedProcess.eventually(timeout: 15) {
            next = try await harness.token("work")
            return next != first
        }
        #expect(refreshed, "no refresh after the fault:\n\(harness.daemonLog)")
        #expect(try await provider.accepts(next))
        let stats = try await provider.stats
        #expect(stats.codeExchanges == 1 && stats.familyRevocations == 0 && stats.liveRefreshTokens == 1, "\(stats)")
        // Provider text is bounded and stripped of control characters in the log.
        #expect(!harness.daemonLog.contains(String(repeating: "ü", count: 301)) && !harness.daemonLog.contains("\u{1B}[2J"))
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func aRealInvalidGrantDropsTheTokensAndAsksForALogin() async throws {
        let (harness, provider, _) = try await Self.signedIn()
        try await provider.revokeAll()  // the mock's own token endpoint now answers invalid_grant
        let refused = try await harness.authctl(["token", "work", "--min-ttl", "19"])
        #expect(refused.status == 77, "\(refused)\n\(harness.daemonLog)")
        #expect(refused.stderr.contains("invalid_grant") && refused.stderr.contains("authctl login work"), "\(refused)")
        let again = try await harness.authctl(["token", "work"])
        #expect(again.status == 77, "the tokens were kept after invalid_grant: \(again)")
        #expect(await harness.stopDaemon() == 0)
    }
}
