import Foundation
import TestSupport
import Testing

/// WorkOS User Management end to end: the real daemon and the real authctl against the mock in its
/// User Management mode (JSON authenticate endpoint refusing forms, JWT access tokens whose `exp`
/// is the only lifetime, rotation with reuse detection, `provider=authkit` required).
@Suite struct WorkOSUserManagementTests {
    /// `authctl account add NAME` for the mock's User Management endpoints, as docs/providers.md
    /// describes it for api.workos.com; `extra` adds options (e.g. `--redirect-uri`).
    static func addAccount(
        _ name: String, _ harness: BrokerHarness, _ provider: MockProviderProcess, extra: [String] = []
    ) async throws {
        let base = provider.issuer + "/user_management"
        let add = try await harness.authctl(
            [
                "account", "add", name, "--issuer", provider.issuer, "--client-id", "mock-client",
                "--token-request-format", "json", "--param", "provider=authkit",
                "--authorization-endpoint", base + "/authorize", "--token-endpoint", base + "/authenticate",
                "--end-session-endpoint", base + "/sessions/logout", "--jwks-uri", provider.issuer + "/jwks",
            ] + extra)
        guard add.status == 0 else { throw HarnessError.unexpected("account add: \(add)\n\(harness.daemonLog)") }
    }

    static func signIn(_ name: String, _ harness: BrokerHarness, _ provider: MockProviderProcess) async throws {
        try await addAccount(name, harness, provider)
        let login = try await harness.login(name, provider: provider)
        guard login.status == 0 else { throw HarnessError.unexpected("login: \(login)\n\(harness.daemonLog)") }
        #expect(login.stderr.contains("Signed in to '\(name)' as mock-user."), "\(login)")
    }

    /// The claims of a JWT access token (read without verifying, as the daemon does).
    static func claims(of token: String) throws -> [String: Any] {
        let payload = String(try #require(token.split(separator: ".").dropFirst().first))
        var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let claims = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: base64))) as? [String: Any]
        return try #require(claims)
    }

    static func sessionID(of token: String) throws -> String {
        try #require(try claims(of: token)["sid"] as? String)
    }

    @Test(.timeLimit(.minutes(1)))
    func loginRefreshWithRotationThenAnEndedSessionNeedsALogin() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"userManagement": true, "accessTokenLifetime": 4}"#)
        try await Self.signIn("wos", harness, provider)
        let status = try await harness.authctl(["status", "wos", "--json"])
        #expect(status.stdout.contains("\"mock-user\""), "\(status)")
        let first = try await harness.token("wos")
        #expect(first.split(separator: ".").count == 3)

        // The JWT's exp (4 s, no expires_in) is the lifetime: the refresh falls due in its last
        // 2 s and rotates the refresh token (reuse would revoke the family).
        var refreshed = first
        let rotated = try await SpawnedProcess.eventually(timeout: 15) {
            refreshed = try await harness.token("wos")
            return refreshed != first
        }
        #expect(rotated, "no refresh:\n\(harness.daemonLog)")
        var stats = try await provider.stats
        #expect(stats.refreshes >= 1 && stats.familyRevocations == 0, "\(stats)")
        #expect(stats.nonJSONAuthenticateRequests == 0, "\(stats)")

        // The user signs out elsewhere: WorkOS ends the session, its refresh token is refused
        // (invalid_grant) and the account needs a login — exit 77, no retry loop.
        let ended = try await provider.get("/user_management/sessions/logout?session_id=" + (try Self.sessionID(of: refreshed)))
        #expect(ended == 200)
        var dead: BrokerHarness.Run?
        let needsLogin = try await SpawnedProcess.eventually(timeout: 15) {
            dead = try await harness.authctl(["token", "wos"])
            return dead?.status == 77
        }
        #expect(needsLogin, "\(dead.map(\.description) ?? "")\n\(harness.daemonLog)")
        let after = try await harness.authctl(["status", "wos", "--json"])
        #expect(after.stdout.contains("\"login_required\""), "\(after)")
        stats = try await provider.stats
        #expect(stats.endedSessions == 1 && stats.familyRevocations == 0, "\(stats)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func logoutPrintsTheSessionLogoutURL() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"userManagement": true}"#)
        try await Self.signIn("wos", harness, provider)
        let sid = try Self.sessionID(of: try await harness.token("wos"))
        let logout = try await harness.authctl(["logout", "wos"])
        #expect(logout.status == 0, "\(logout)")
        #expect(logout.stderr.contains("no revocation endpoint"), "\(logout)")
        #expect(logout.line == provider.issuer + "/user_management/sessions/logout?session_id=" + sid, "\(logout)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// A network failure (the provider is gone: connection refused): the token is served while its
    /// `exp` says it is valid — through the failing refreshes of its last 4 s —, then `authctl token`
    /// exits 75, as for every provider. Timed from the token's own `exp`, so a slow machine cannot
    /// make the test race the daemon's refresh.
    @Test(.timeLimit(.minutes(1)))
    func networkFailureServesTheTokenWhileValidThenExits75() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"userManagement": true, "accessTokenLifetime": 8}"#)
        try await Self.signIn("wos", harness, provider)
        await provider.stop()
        let held = try await harness.token("wos")
        let expiry = Date(timeIntervalSince1970: try #require(try Self.claims(of: held)["exp"] as? Double))

        try await Task.sleep(until: .now + .seconds(expiry.timeIntervalSinceNow - 1.5))
        #expect(try await harness.token("wos") == held)
        let attempts = harness.daemonLog.components(separatedBy: "refreshing the access token").count - 1
        #expect(attempts >= 1, "the daemon did not try to refresh:\n\(harness.daemonLog)")

        try await Task.sleep(until: .now + .seconds(expiry.timeIntervalSinceNow + 0.6))
        let down = try await harness.authctl(["token", "wos"])
        #expect(down.status == 75, "\(down)\n\(harness.daemonLog)")
        #expect(down.stdout.isEmpty)
        let status = try await harness.authctl(["status", "wos", "--json"])
        #expect(status.stdout.contains("\"provider_unavailable\""), "\(status)")
        #expect(await harness.stopDaemon() == 0)
    }
}
