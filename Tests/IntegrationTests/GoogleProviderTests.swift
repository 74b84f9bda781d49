import Foundation
import Testing

/// Issue 12, item 5, with the real binaries against the mock's Google mode (shaped by Google's
/// "OAuth 2.0 for Mobile & Desktop Apps" and "OpenID Connect" pages): a desktop client whose
/// secret is not secret, a refresh token only for `access_type=offline` (after the first consent
/// only with `prompt=consent`), refreshes that never restate the refresh token, opaque `ya29.`
/// access tokens, and a revocation endpoint that kills the whole grant and answers 400
/// `invalid_token` for a token that is already dead.
@Suite struct GoogleProviderTests {
    static let mock =
        #"{"google": true, "clientAuthentication": "client_secret_post", "clientSecret": "GOCSPX-not-secret", "accessTokenLifetime": 20}"#

    /// `account add NAME` with the desktop client's secret file, the issuer pointed at the mock,
    /// and `preset` (or manual) options.
    static func addAccount(_ name: String, _ harness: BrokerHarness, _ provider: MockProviderProcess, _ options: [String])
        async throws
    {
        let secretFile = harness.root + "/google.secret"
        _ = FileManager.default.createFile(
            atPath: secretFile, contents: Data("GOCSPX-not-secret\n".utf8), attributes: [.posixPermissions: 0o600])
        let add = try await harness.authctl(
            [
                "account", "add", name, "--issuer", provider.issuer, "--client-id", "mock-client", "--client-secret-file",
                secretFile,
            ]
                + options)
        guard add.status == 0 else { throw HarnessError.unexpected("account add: \(add)\n\(harness.daemonLog)") }
    }

    /// `authctl login NAME` with the test as the browser; returns the run and the authorization URL.
    static func login(_ name: String, _ harness: BrokerHarness, _ provider: MockProviderProcess) async throws
        -> (BrokerHarness.Run, String)
    {
        let login = try harness.spawnAuthctl(["login", name, "--no-browser", "--timeout", "30"])
        let url = try await harness.authorizationURL(printedBy: login)
        _ = try await provider.playBrowser(url)
        let status = await login.waitForExit(timeout: 40)
        return (BrokerHarness.Run(status: status, stdout: login.stdout, stderr: login.stderr, pid: login.pid), url)
    }

    @Test(.timeLimit(.minutes(1)))
    func presetLoginRefreshesTwiceOnTheSameRefreshTokenAndLogoutRevokesTheGrant() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: Self.mock)
        try await Self.addAccount("work", harness, provider, ["--provider", "google"])
        let (login, url) = try await Self.login("work", harness, provider)
        #expect(login.status == 0, "\(login)\n\(harness.daemonLog)")
        #expect(url.contains("access_type=offline") && url.contains("prompt=consent"), "\(url)")
        let first = try await harness.token("work")
        #expect(first.hasPrefix("ya29."), "\(first)")

        // Google's refresh answers carry no refresh_token: each refresh must reuse the login's.
        let second = try await GitHubProviderTests.refreshedToken(harness)
        #expect(second.status == 0 && second.line != first, "\(second)\n\(harness.daemonLog)")
        let third = try await GitHubProviderTests.refreshedToken(harness)
        #expect(third.status == 0 && third.line != second.line, "\(third)\n\(harness.daemonLog)")
        #expect(try await provider.accepts(third.line))
        var stats = try await provider.stats
        #expect(stats.refreshes == 2 && stats.liveRefreshTokens == 1, "\(stats)")

        // Revoking the refresh token kills the grant; the access token's revocation then gets
        // 400 invalid_token, which still means "revoked".
        let logout = try await harness.authctl(["logout", "work"])
        #expect(logout.status == 0 && !logout.stderr.contains("not revoked"), "\(logout)\n\(harness.daemonLog)")
        stats = try await provider.stats
        #expect(stats.revocations == 2 && stats.liveRefreshTokens == 0, "\(stats)")
        #expect(try await provider.accepts(third.line) == false)
        #expect(try await harness.authctl(["token", "work"]).status == 77)
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    @Test(.timeLimit(.minutes(1)))
    func aRevokedGrantAsksForALoginAndALoginWithoutARefreshTokenSaysHowToGetOne() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: Self.mock)
        try await Self.addAccount("work", harness, provider, ["--provider", "google"])
        #expect(try await Self.login("work", harness, provider).0.status == 0, "\(harness.daemonLog)")
        _ = try await harness.token("work")

        // The user removes the app at myaccount.google.com: the refresh gets invalid_grant.
        try await provider.revokeAll()
        let refused = try await GitHubProviderTests.refreshedToken(harness)
        #expect(refused.status == 77, "\(refused)\n\(harness.daemonLog)")
        #expect(refused.stderr.contains("invalid_grant") && refused.stderr.contains("authctl login work"), "\(refused)")

        // access_type=offline without prompt=consent, after the user has consented once: Google
        // shows no consent screen and issues no refresh token. The token works until it expires.
        try await provider.configure(#"{"accessTokenLifetime": 3}"#)
        try await Self.addAccount(
            "online", harness, provider, ["--scope", "openid", "--scope", "email", "--param", "access_type=offline"])
        let (login, url) = try await Self.login("online", harness, provider)
        #expect(login.status == 0 && !url.contains("prompt="), "\(login)\n\(url)")
        #expect(try await provider.accepts(try await harness.token("online")))
        #expect(try await provider.stats.liveRefreshTokens == 0)
        try await Task.sleep(for: .seconds(4))
        let expired = try await harness.authctl(["token", "online"])
        #expect(expired.status == 77, "\(expired)\n\(harness.daemonLog)")
        #expect(
            expired.stderr.contains("no refresh token") && expired.stderr.contains("access_type=offline and prompt=consent")
                && expired.stderr.contains("authctl login online"), "\(expired)")
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }
}
