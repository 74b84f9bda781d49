import Foundation
import Testing

/// `authctl account update NAME` for every account field, with the real daemon and authctl against
/// the mock provider: a token-neutral change keeps the tokens (served with no new login); a change
/// that signs out is said first — refused without a terminal unless --yes, asked on a terminal.
@Suite(.serialized) struct AccountUpdateTests {
    static func signedIn() async throws -> (BrokerHarness, MockProviderProcess, token: String) {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        return (harness, provider, try await harness.token("work"))
    }

    static func configuration(_ harness: BrokerHarness, _ name: String = "work") async throws -> [String: Any] {
        let shown = try await harness.authctl(["account", "show", name, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        return try #require(object?["configuration"] as? [String: Any], "\(shown)")
    }

    @Test(.timeLimit(.minutes(3)))
    func aTokenNeutralUpdateKeepsTheTokens() async throws {
        let (harness, provider, token) = try await Self.signedIn()
        let update = try await harness.authctl([
            "account", "update", "work", "--browser", "firefox -P work", "--git-url-prefix", "https://git.example/",
            "--par", "never", "--allow-narrowing",
        ])
        #expect(update.status == 0 && update.stderr == "Updated 'work'; its tokens are kept.\n", "\(update)")
        #expect(try await harness.token("work") == token, "the same token, no new login")
        let stats = try await provider.stats
        #expect(stats.codeExchanges == 1 && stats.refreshes == 0)
        let configuration = try await Self.configuration(harness)
        #expect(configuration["browser"] as? String == "firefox -P work")
        #expect(configuration["git_url_prefix"] as? String == "https://git.example/")
        #expect(configuration["par"] as? String == "never" && configuration["allow_narrowing"] as? Bool == true)

        let cleared = try await harness.authctl(["account", "update", "work", "--no-browser", "--no-par"])
        #expect(cleared.status == 0 && cleared.stderr.contains("tokens are kept"), "\(cleared)")
        let after = try await Self.configuration(harness)
        #expect(after["browser"] == nil && after["par"] == nil && after["git_url_prefix"] as? String == "https://git.example/")
        #expect(try await harness.token("work") == token)
        #expect(try await harness.authctl(["account", "update", "work", "--no-browser"]).stderr == "'work' is unchanged.\n")
        let conflict = try await harness.authctl(["account", "update", "work", "--no-browser", "--browser", "x"])
        #expect(conflict.status == 64 && conflict.stderr.contains("--no-browser and --browser conflict"), "\(conflict)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func aSignOutIsRefusedWithoutATerminalUnlessYes() async throws {
        let (harness, _, token) = try await Self.signedIn()
        let refused = try await harness.authctl(["account", "update", "work", "--scope", "openid", "--redirect-port", "8765"])
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "one line: \(refused.stderr)")
        #expect(
            refused.stderr.contains("changing redirect_port, scopes signs 'work' out") && refused.stderr.contains("--yes"),
            "\(refused)")
        #expect(try await harness.token("work") == token, "nothing was changed")
        #expect(try await Self.configuration(harness)["redirect_port"] == nil)

        let done = try await harness.authctl([
            "account", "update", "work", "--scope", "openid", "--redirect-port", "8765", "--yes",
        ])
        #expect(done.status == 0 && done.stderr.contains("signed it out. Sign in again with: authctl login work"), "\(done)")
        #expect(try await harness.authctl(["token", "work"]).status == 77)
        let configuration = try await Self.configuration(harness)
        #expect(configuration["scopes"] as? [String] == ["openid"] && configuration["redirect_port"] as? Int == 8765)

        // Nothing left to sign out: a security-relevant change is made without asking.
        let again = try await harness.authctl(["account", "update", "work", "--no-redirect-port"])
        #expect(again.status == 0 && again.stderr.contains("Updated 'work'"), "\(again)")
        #expect(try await Self.configuration(harness)["redirect_port"] == nil)
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func onATerminalTheSignOutIsAskedFirst() async throws {
        let (harness, _, token) = try await Self.signedIn()
        let question = "signs 'work' out (its tokens are deleted; sign in again with: authctl login work). Continue? [y/N] "
        let declined = try CallerPolicyConfirmationTests.onATerminal(["account", "update", "work", "--audience", "api"], harness)
        #expect(await SpawnedProcess.eventually { declined.stdout.contains(question) }, "\(declined.stdout)")
        try declined.process.writeToStdin("n\n")
        #expect(await declined.waitForExit(timeout: 30) == 1, "\(declined.stdout)")
        #expect(declined.stdout.contains("Nothing was changed."), "\(declined.stdout)")
        #expect(try await harness.token("work") == token)
        #expect(try await Self.configuration(harness)["audience"] == nil)

        let agreed = try CallerPolicyConfirmationTests.onATerminal(["account", "update", "work", "--audience", "api"], harness)
        #expect(await SpawnedProcess.eventually { agreed.stdout.contains(question) }, "\(agreed.stdout)")
        try agreed.process.writeToStdin("y\n")
        #expect(await agreed.waitForExit(timeout: 30) == 0, "\(agreed.stdout)")
        #expect(agreed.stdout.contains("signed it out"), "\(agreed.stdout)")
        #expect(try await harness.authctl(["token", "work"]).status == 77)
        #expect(try await Self.configuration(harness)["audience"] as? String == "api")
        #expect(await harness.stopDaemon() == 0)
    }

    /// The daemon never returns the client secret: update keeps the sealed one unless told.
    @Test(.timeLimit(.minutes(3)))
    func theClientSecretIsKeptUnlessReplacedOrRemoved() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        let secret = harness.root + "/secret"
        try "s3cret-value\n".write(toFile: secret, atomically: true, encoding: .utf8)
        let add = try await harness.authctl([
            "account", "add", "conf", "--issuer", provider.issuer, "--client-id", "mock-client", "--client-secret-file", secret,
        ])
        try #require(add.status == 0, "\(add)")
        #expect(try await harness.authctl(["account", "update", "conf", "--git-username", "alice"]).status == 0)
        #expect(harness.daemonLog.contains(" changed=git_username tokens=kept "), "\(harness.daemonLog)")
        let moved = try await harness.authctl(["account", "update", "conf", "--client-id", "other-client"])
        #expect(
            moved.status == 64 && moved.stderr.contains("needs its client secret again (--client-secret-file FILE"), "\(moved)")
        #expect(try await harness.authctl(["account", "update", "conf", "--no-client-secret"]).status == 0)
        #expect(harness.daemonLog.contains(" changed=client_secret "), "\(harness.daemonLog)")
        #expect(!harness.daemonLog.contains("s3cret-value"))
        #expect(await harness.stopDaemon() == 0)
    }
}
