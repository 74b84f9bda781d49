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

    /// SIGTERM 0.5 s into a slow refresh (the provider answers after 2 s, rotating the refresh
    /// token): the daemon waits for the answer, commits it, hands it to the parked caller and exits
    /// 0. After the restart the rotated token is served without a login, and the next refresh uses
    /// the current refresh token — the provider sees no reuse.
    @Test(.timeLimit(.minutes(1)))
    func gracefulStopDuringARefreshKeepsTheRotatedToken() async throws {
        let (harness, provider, first, caller) = try await Self.interruptRefresh(
            fault: #"{"kind": "slow", "delayMilliseconds": 2000, "remaining": 1}"#, signal: SIGTERM,
            after: .milliseconds(500), expectedStatus: 0)
        #expect(await caller.waitForExit(timeout: 10) == 0, "the parked caller got no token: \(caller.stderr)")
        let refreshed = caller.stdout.trimmingCharacters(in: .newlines)
        #expect(harness.daemonLog.contains("waiting for 1 token request(s) in flight"), "\(harness.daemonLog)")
        try await harness.startDaemon()
        #expect(try await harness.token("work") == refreshed, "the rotated token was not kept:\n\(harness.daemonLog)")
        #expect(refreshed != first)
        try await Task.sleep(for: .seconds(3.2))  // past the first 10 % of the new token's lifetime
        let next = try await harness.token("work", ["--min-ttl", "3600"])
        #expect(try await provider.accepts(next))
        let stats = try await provider.stats
        #expect(stats.familyRevocations == 0 && stats.refreshes == 2, "\(stats)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// Signs in with 30-second tokens, waits until the token is no longer brand new, injects
    /// `fault` at the token endpoint, starts a refresh with `--min-ttl`, SIGKILLs the daemon while
    /// the refresh is in flight and restarts it. Returns the token from before the kill.
    static func killDuringRefresh(fault: String) async throws -> (BrokerHarness, MockProviderProcess, String) {
        let (harness, provider, first, caller) = try await interruptRefresh(
            fault: fault, signal: SIGKILL, after: .zero, expectedStatus: 128 + SIGKILL)
        let callerStatus = await caller.waitForExit(timeout: 10)
        #expect(callerStatus != 0, "the caller got a token from a killed daemon: \(caller.stdout)")
        try await harness.startDaemon()
        return (harness, provider, first)
    }

    /// The common part: signs in, injects `fault`, starts a refresh with a parked caller, sends
    /// `signal` to the daemon `after` the request reached the provider, and checks its exit status.
    /// Returns the token from before, and the caller (still running or finished).
    static func interruptRefresh(
        fault: String, signal: Int32, after delay: Duration, expectedStatus: Int32
    ) async throws -> (BrokerHarness, MockProviderProcess, String, SpawnedProcess) {
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
        try await Task.sleep(for: delay)
        #expect(await harness.stopDaemon(signal: signal) == expectedStatus, "\(harness.daemonLog)")
        return (harness, provider, first, caller)
    }
}
