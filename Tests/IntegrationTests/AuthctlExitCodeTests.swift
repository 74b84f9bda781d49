import Foundation
import Testing

/// `authctl`'s exit codes and `status --json` against the real daemon and the spawned mock.
@Suite struct AuthctlExitCodeTests {
    @Test(.timeLimit(.minutes(1)))
    func statusJSONHasTheDocumentedShape() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        try await harness.addAccount("spare", provider: provider)

        let run = try await harness.authctl(["status", "--json"])
        #expect(run.status == 0, "\(run)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let accounts = try #require(object?["accounts"] as? [[String: Any]], "\(run.stdout)")
        #expect(accounts.count == 2)
        let fields: Set = ["name", "state", "expires_at", "last_refresh", "last_error", "subject", "scope"]
        for account in accounts { #expect(Set(account.keys) == fields, "\(account.keys.sorted())") }
        let work = try #require(accounts.first { $0["name"] as? String == "work" })
        #expect(work["state"] as? String == "active")
        #expect(work["subject"] as? String == "mock-user")
        #expect(work["last_error"] is NSNull)
        let expiresAt = try #require(work["expires_at"] as? String)
        #expect(ISO8601DateFormatter().date(from: expiresAt).map { $0 > Date() } == true, "\(expiresAt)")
        #expect(expiresAt.hasSuffix("Z"))
        let spare = try #require(accounts.first { $0["name"] as? String == "spare" })
        #expect(spare["state"] as? String == "logged_out")
        #expect(spare["expires_at"] is NSNull && spare["subject"] is NSNull && spare["last_refresh"] is NSNull)

        let one = try await harness.authctl(["status", "spare", "--json"])
        #expect(one.status == 0 && one.stdout.contains("\"logged_out\"") && !one.stdout.contains("\"work\""), "\(one)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func deniedLoginFailsWithTheProvidersReason() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"denyConsent": true}"#)
        try await harness.addAccount("work", provider: provider)
        let login = try await harness.login("work", provider: provider)
        #expect(login.status == 1, "\(login)")
        #expect(login.stderr.contains("access_denied") || login.stderr.contains("denied the request"), "\(login.stderr)")
        // One sentence, said once: not "login to 'work' failed: The login for 'work' failed: …".
        #expect(
            login.stderr.contains("authctl: The login for 'work' failed: the provider refused it: access_denied"),
            "\(login.stderr)")
        #expect(login.stderr.components(separatedBy: "failed").count == 2, "\(login.stderr)")
        let token = try await harness.authctl(["token", "work"])
        #expect(token.status == 77, "\(token)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func loginTimeoutIsATemporaryFailureAndUnknownAccountsFail() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)

        // Nobody answers as the browser: the login gives up after --timeout (any whole number ≥ 1).
        let login = try await harness.authctl(["login", "work", "--no-browser", "--timeout", "3"], timeout: 30)
        #expect(login.status == 75, "\(login)")
        #expect(login.stdout.hasPrefix("http"), "the URL was not printed: \(login.stdout)")
        // The daemon's pending login ended too: a new one starts (not joined to a dead one).
        let again = try harness.spawnAuthctl(["login", "work", "--no-browser", "--timeout", "30"])
        let url = try await harness.authorizationURL(printedBy: again)
        #expect(url != login.line)
        #expect(try await provider.playBrowser(url) == 200)
        #expect(await again.waitForExit() == 0, "\(again.stderr)")

        for timeout in ["0", "3601", "1.5"] {
            let refused = try await harness.authctl(["login", "work", "--no-browser", "--timeout", timeout])
            #expect(refused.status == 64 && refused.stderr.contains("--timeout"), "\(timeout): \(refused)")
        }
        for arguments in [
            ["token", "nosuch"], ["login", "nosuch", "--no-browser", "--timeout", "10"], ["logout", "nosuch"],
            ["status", "nosuch"], ["account", "show", "nosuch"],
        ] {
            let run = try await harness.authctl(arguments)
            #expect(run.status == 1, "\(arguments): \(run)")
            #expect(run.stderr.contains("nosuch"), "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(arguments): \(run.stdout)")
        }
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func daemonNotRunningIs69() async throws {
        let harness = try BrokerHarness()
        for arguments in [["token", "work"], ["ping"], ["status", "--json"], ["login", "work", "--no-browser"]] {
            let run = try await harness.authctl(arguments)
            #expect(run.status == 69, "\(arguments): \(run)")
            #expect(run.stderr.contains("not running"), "\(arguments): \(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }
}
