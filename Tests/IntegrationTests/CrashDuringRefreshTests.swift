import Foundation
import Testing

/// `authbrokerd` SIGKILLed while a refresh is in flight (the mock's token endpoint slowed), then
/// restarted over the stale socket.
@Suite struct CrashDuringRefreshTests {
    /// The provider had not processed the refresh when the daemon died: nothing is lost — the
    /// stored token is served, the stored refresh token still works, no reuse is detected.
    @Test(.timeLimit(.minutes(1)))
    func killBeforeTheProviderAnsweredLosesNothing() async throws {
        let (harness, provider, first) = try await Self.killDuringRefresh(
            fault: #"{"kind": "slow", "delayMilliseconds": 3000, "status": 504, "remaining": 1}"#)
        #expect(try await harness.token("work") == first, "the stored token was not served after the restart")
        let refreshed = try await harness.token("work", ["--min-ttl", "3600"])
        #expect(refreshed != first)
        #expect(try await provider.accepts(refreshed))
        let stats = try await provider.stats
        #expect(stats.familyRevocations == 0, "\(stats)")
        #expect(stats.refreshes == 1 && stats.codeExchanges == 1, "\(stats)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// The provider rotated the refresh token but the answer died with the daemon: the stored
    /// refresh token is now retired, and using it trips reuse detection. Nothing can recover that
    /// family (providers offer a reuse grace period for this); the daemon must fail closed — the
    /// still-valid token is served, then `login_required` (77), no crash and no retry loop.
    @Test(.timeLimit(.minutes(1)))
    func killAfterTheProviderCommittedFailsClosed() async throws {
        let (harness, provider, first) = try await Self.killDuringRefresh(
            fault: #"{"kind": "slow", "delayMilliseconds": 1500, "remaining": 1}"#)
        #expect(try await harness.token("work") == first)
        _ = await SpawnedProcess.eventually(timeout: 10) { (try? await provider.stats.refreshes) == 1 }
        let after = try await harness.authctl(["token", "work", "--min-ttl", "3600"])
        #expect(after.status == 77, "\(after)")
        #expect(after.stderr.contains("authctl login work"), "\(after.stderr)")
        let stats = try await provider.stats
        #expect(stats.familyRevocations == 1 && stats.refreshes == 2, "\(stats)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// Signs in with 30-second tokens, waits until the token is no longer brand new, injects
    /// `fault` at the token endpoint, starts a refresh with `--min-ttl`, SIGKILLs the daemon while
    /// the refresh is in flight and restarts it. Returns the token from before the kill.
    static func killDuringRefresh(fault: String) async throws -> (BrokerHarness, MockProviderProcess, String) {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"accessTokenLifetime": 30}"#)
        try await harness.signIn("work", provider: provider)
        let first = try await harness.token("work")
        try await Task.sleep(for: .seconds(3.2))  // past the first 10 % of the lifetime
        try await provider.configure(#"{"faults": {"token": \#(fault)}}"#)

        let caller = try harness.spawnAuthctl(["token", "work", "--min-ttl", "3600"])
        let inFlight = await SpawnedProcess.eventually(timeout: 10) {
            harness.daemonLog.contains("refreshing the access token")
        }
        try #require(inFlight, "no refresh started:\n\(harness.daemonLog)")
        // …and the request has reached the provider (the fault is taken on arrival), so the kill
        // lands while the provider is working on it, not before the daemon sent it.
        let arrived = try await SpawnedProcess.eventually(timeout: 10) {
            try await provider.configurationJSON.contains(#""remaining":0"#)
        }
        try #require(arrived, "the refresh never reached the provider:\n\(harness.daemonLog)")
        #expect(await harness.stopDaemon(signal: SIGKILL) == 128 + SIGKILL)
        let callerStatus = await caller.waitForExit(timeout: 10)
        #expect(callerStatus != 0, "the caller got a token from a killed daemon: \(caller.stdout)")
        try await harness.startDaemon()
        return (harness, provider, first)
    }
}
