import Foundation
import Testing

/// The provider's token endpoint fails (503 with Retry-After): the daemon keeps serving the token
/// it has while it is valid, answers 75 (temporary failure) once it has expired, and recovers by
/// itself when the provider is back — without a new login.
@Suite struct ProviderOutageTests {
    @Test(.timeLimit(.minutes(1)))
    func validTokenServedThenTemporaryFailureThenRecovery() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"accessTokenLifetime": 8}"#)
        try await harness.signIn("work", provider: provider)
        let signedIn = Date()
        let first = try await harness.token("work")
        try await provider.configure(#"{"faults": {"token": {"kind": "status", "status": 503, "retryAfter": "1"}}}"#)

        // Inside the 4-second margin the proactive refresh fails; the still-valid token is served,
        // even to a caller asking for more lifetime than it has. (8-second tokens: the fault must be
        // in place before the refresh falls due, ≥ 3 s after the login, also on a loaded machine.)
        try await Task.sleep(until: .now + .seconds(5.2) - .seconds(Date().timeIntervalSince(signedIn)))
        #expect(try await harness.token("work") == first)
        #expect(try await harness.token("work", ["--min-ttl", "60"]) == first)
        #expect(try await provider.accepts(first))

        // Expired and the provider still down: a temporary failure, not a login.
        try await Task.sleep(until: .now + .seconds(8.6) - .seconds(Date().timeIntervalSince(signedIn)))
        let down = try await harness.authctl(["token", "work"])
        #expect(down.status == 75, "\(down)")
        #expect(down.stdout.isEmpty)
        let status = try await harness.authctl(["status", "work", "--json"])
        #expect(status.stdout.contains("\"provider_unavailable\""), "\(status)")
        // (Faulted requests never reach the mock's counters; the daemon log shows the attempts.)
        let attempts = harness.daemonLog.components(separatedBy: "refreshing the access token").count - 1
        #expect(attempts >= 2, "the daemon did not retry:\n\(harness.daemonLog)")
        #expect(try await provider.stats.tokensIssued == 1)

        // The provider is back: the same refresh token still works, no login needed.
        try await provider.configure(#"{"faults": {}}"#)
        var recovered: BrokerHarness.Run?
        let came = try await SpawnedProcess.eventually(timeout: 15) {
            recovered = try await harness.authctl(["token", "work"])
            return recovered?.status == 0
        }
        #expect(came, "no recovery: \(recovered.map(\.description) ?? "")\n\(harness.daemonLog)")
        let token = try #require(recovered?.line)
        #expect(token != first)
        #expect(try await provider.accepts(token))
        let stats = try await provider.stats
        #expect(stats.codeExchanges == 1 && stats.familyRevocations == 0, "\(stats)")
        #expect(await harness.stopDaemon() == 0)
    }
}
