import Foundation
import Testing

/// The product's main path with the real binaries against the spawned mock provider: add → login
/// (the test plays the browser) → tokens through refreshes with rotation → daemon restart →
/// logout → login required.
@Suite struct TokenLifecycleTests {
    @Test(.timeLimit(.minutes(1)))
    func tokensSurviveRefreshesRotationAndRestartUntilLogout() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"accessTokenLifetime": 4}"#)
        try await harness.signIn("work", provider: provider)

        // 4-second tokens refresh about every 2 s (margin 2 s: a served token has ≥ 2 s left, enough
        // for the provider's check on a loaded machine); every answer must be accepted.
        // Until four distinct tokens were served (≥ 3 refreshes), bounded: on a loaded machine one
        // round (authctl start, the provider's check) can take a second or more.
        var seen: [String] = []
        let until = Date().addingTimeInterval(25)
        var rotated = false
        while Date() < until, seen.count < 4 {
            let token = try await harness.token("work")
            #expect(try await provider.accepts(token), "token #\(seen.count) rejected by the provider")
            if seen.last != token { seen.append(token) }
            if !rotated, seen.count == 2 {
                try await provider.rotateKey()  // refreshed ID tokens now carry a new kid
                rotated = true
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(seen.count >= 4, "only \(seen.count) distinct tokens in 25 s of 4-second lifetimes")
        #expect(Set(seen).count == seen.count, "a token came back after it had been replaced")
        let refreshed = try await provider.stats
        #expect(refreshed.refreshes >= 3)
        #expect(refreshed.refreshes == refreshed.tokensIssued - 1, "a refresh failed: \(refreshed)")
        #expect(refreshed.familyRevocations == 0)

        // The tokens come back from the database after a restart: no new login.
        #expect(await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        let afterRestart = try await harness.token("work")
        #expect(try await provider.accepts(afterRestart))
        #expect(try await provider.stats.codeExchanges == 1, "the restart needed a new login")

        let logout = try await harness.authctl(["logout", "work"])
        #expect(logout.status == 0, "\(logout)")
        let revoked = try await provider.stats
        #expect(revoked.revocations >= 1, "the provider saw no revocation: \(revoked)")
        #expect(revoked.familyRevocations == 0)
        let after = try await harness.authctl(["token", "work"])
        #expect(after.status == 77, "\(after)")
        #expect(after.stderr.contains("authctl login work"), "\(after.stderr)")
        #expect(after.stdout.isEmpty)
        #expect(await harness.stopDaemon() == 0)
        #expect(!seen.contains { harness.daemonLog.contains($0) }, "a token value reached the daemon log")
    }
}
