import Foundation
import Testing

/// Issue 12, item 4, with the real binaries against the mock's GitHub mode (shaped by GitHub's
/// "Authorizing OAuth apps" and "Refreshing user access tokens" documentation): manual endpoints,
/// no discovery, no ID token, errors with HTTP 200, single-use refresh tokens that also retire the
/// old access token, the device flow, and no revocation endpoint.
@Suite struct GitHubProviderTests {
    static func addAccount(_ name: String, _ harness: BrokerHarness, _ provider: MockProviderProcess) async throws {
        let github = provider.issuer + "/login"
        let add = try await harness.authctl([
            "account", "add", name, "--issuer", provider.issuer, "--client-id", "mock-client",
            "--authorization-endpoint", github + "/oauth/authorize", "--token-endpoint", github + "/oauth/access_token",
            "--device-authorization-endpoint", github + "/device/code", "--scope", "repo", "--scope", "read:user",
        ])
        guard add.status == 0 else { throw HarnessError.unexpected("account add: \(add)\n\(harness.daemonLog)") }
    }

    /// A refresh now: the token is 2 s old, no longer brand new, and 19 s is more than it has left.
    static func refreshedToken(_ harness: BrokerHarness) async throws -> BrokerHarness.Run {
        try await Task.sleep(for: .milliseconds(2200))
        return try await harness.authctl(["token", "work", "--min-ttl", "19"])
    }

    @Test(.timeLimit(.minutes(1)))
    func codeLoginRefreshesWithRotationUntilBadRefreshTokenAsksForALogin() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"github": true, "accessTokenLifetime": 20, "detectRefreshTokenReuse": false}"#)
        try await Self.addAccount("work", harness, provider)
        let login = try await harness.login("work", provider: provider)
        #expect(login.status == 0, "\(login)\n\(harness.daemonLog)")
        let first = try await harness.token("work")

        // Two refreshes in a row: each must use the refresh token the previous one returned.
        let second = try await Self.refreshedToken(harness)
        #expect(second.status == 0 && second.line != first, "\(second)\n\(harness.daemonLog)")
        let third = try await Self.refreshedToken(harness)
        #expect(third.status == 0 && third.line != second.line, "\(third)\n\(harness.daemonLog)")
        #expect(try await provider.accepts(third.line))
        #expect(try await provider.accepts(first) == false, "GitHub retires the old access token on refresh")
        let stats = try await provider.stats
        #expect(stats.refreshes == 2 && stats.liveRefreshTokens == 1, "\(stats)")
        #expect(stats.formEncodedAnswers == 0, "a token request did not send Accept: application/json")

        // The user revokes the app at GitHub: the next refresh gets 200 {"error":"bad_refresh_token"}.
        try await provider.revokeAll()
        let refused = try await Self.refreshedToken(harness)
        #expect(refused.status == 77, "\(refused)\n\(harness.daemonLog)")
        #expect(refused.stderr.contains("bad_refresh_token") && refused.stderr.contains("authctl login work"), "\(refused)")

        // Sign in again, then log out: GitHub has no RFC 7009 endpoint, and logout says so.
        let relogin = try await harness.login("work", provider: provider)
        #expect(relogin.status == 0, "\(relogin)")
        let logout = try await harness.authctl(["logout", "work"])
        #expect(logout.status == 0 && logout.stderr.contains("no revocation endpoint"), "\(logout)")
        #expect(try await harness.authctl(["token", "work"]).status == 77)
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func deviceLoginPollsThroughPendingAndADenialEndsItAtOnce() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"github": true, "devicePendingPolls": 2, "deviceInterval": 1}"#)
        try await Self.addAccount("work", harness, provider)
        let login = try await harness.authctl(["login", "work", "--device", "--timeout", "30"])
        #expect(login.status == 0 && login.stderr.contains("MOCK-CODE"), "\(login)\n\(harness.daemonLog)")
        let token = try await harness.token("work")
        #expect(try await provider.accepts(token))
        #expect(try await provider.stats.formEncodedAnswers == 0)

        // access_denied comes with HTTP 200 too: the login ends at the next poll, not at its timeout.
        try await provider.configure(#"{"deviceDenies": true, "devicePendingPolls": 0}"#)
        let started = Date()
        let denied = try await harness.authctl(["login", "work", "--device", "--timeout", "30"])
        #expect(denied.status != 0 && denied.stderr.contains("denied"), "\(denied)\n\(harness.daemonLog)")
        #expect(Date().timeIntervalSince(started) < 15, "the denial was retried until the timeout")
        #expect(await harness.stopDaemon() == 0)
    }
}
