import Foundation
import Testing

/// What `authctl login` says and leaves behind when a login does not complete (issue 29).
@Suite struct LoginProgressTests {
    /// A re-login nobody finishes must not mark an account whose tokens are fine as failing.
    @Test(.timeLimit(.minutes(1)))
    func timedOutReloginLeavesTheActiveAccountActiveWithoutAnError() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let login = try await harness.authctl(["login", "work", "--no-browser", "--timeout", "1"], timeout: 30)
        #expect(login.status == 75, "\(login)")
        let run = try await harness.authctl(["status", "work", "--json"])
        #expect(run.status == 0, "\(run)")
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let work = try #require((object?["accounts"] as? [[String: Any]])?.first, "\(run.stdout)")
        #expect(work["state"] as? String == "active", "\(run.stdout)")
        #expect(work["last_error"] is NSNull, "\(run.stdout)")
        #expect(try await provider.accepts(try await harness.token("work")))
        #expect(await harness.stopDaemon() == 0)
    }

    /// `--no-browser` and no browser to open (no display, no command) are both said on stderr.
    @Test(.timeLimit(.minutes(1)))
    func aLoginThatOpensNoBrowserSaysSo() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        let flag = try await harness.authctl(["login", "work", "--no-browser", "--timeout", "1"], timeout: 30)
        #expect(flag.status == 75 && flag.stderr.contains("No browser opened (--no-browser)"), "\(flag)")
        // The harness's environment has no DISPLAY, WAYLAND_DISPLAY or BROWSER: nothing to open.
        #expect(harness.environment["DISPLAY"] == nil && harness.environment["BROWSER"] == nil)
        let none = try await harness.authctl(["login", "work", "--timeout", "1"], timeout: 30)
        #expect(none.status == 75 && none.stderr.contains("No browser opened (no display"), "\(none)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// The daemon dies while `login` waits: the next step, and exit 69 (not a bare exit 1).
    @Test(.timeLimit(.minutes(1)))
    func aDaemonThatDiesMidLoginGivesTheNextStep() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        let login = try harness.spawnAuthctl(["login", "work", "--no-browser", "--timeout", "60"])
        _ = try await harness.authorizationURL(printedBy: login)
        _ = await harness.stopDaemon(signal: SIGKILL)
        #expect(await login.waitForExit(timeout: 30) == 69, "\(login.stderr)")
        #expect(
            login.stderr.contains(
                "the daemon stopped during the login. Start one there with: authbrokerd --socket \(harness.socket)")
                && login.stderr.contains("Then run: authctl login work"),
            "\(login.stderr)")
    }

    /// On a terminal (stderr a pty, stdin not, so no paste is read) the wait line shows the time left.
    /// `joining`: a login with 300 s is pending first, and the terminal's login (asking for an
    /// hour) joins it: the time left is the pending login's, not the hour.
    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func theWaitShowsTheTimeLeftOnATerminal(joining: Bool) async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        var first: SpawnedProcess?
        if joining {
            first = try harness.spawnAuthctl(["login", "work", "--no-browser", "--timeout", "300"])
            _ = try await harness.authorizationURL(printedBy: first!)
        }
        let timeout = joining ? "3600" : "300"
        let command = [
            try BrokerHarness.binary("authctl"), "--socket", harness.socket, "login", "work", "--no-browser", "--timeout",
            timeout,
        ]
        let line = command.map { "'\($0)'" }.joined(separator: " ") + " </dev/null"
        let output = harness.root + "/tty-countdown-\(joining).out"
        var environment = harness.environment
        environment["SHELL"] = "/bin/bash"
        let terminal = try SpawnedProcess(
            ["script", "-qec", line, "/dev/null"], environment: environment, stdoutPath: output, stderrPath: output,
            keepStdinOpen: true)
        // 300 s requested: some "4:5x left" shows within the first minute of waiting.
        let shown = await SpawnedProcess.eventually(timeout: 30) {
            terminal.stdout.contains("Waiting for the login to complete… 4:")
                && terminal.stdout.contains(" left (Ctrl-C to stop)")
        }
        #expect(shown, "\(terminal.stdout)")
        _ = await terminal.stop(signal: SIGKILL)
        _ = await first?.stop(signal: SIGKILL)
        #expect(await harness.stopDaemon() == 0)
    }

    /// The provider is down when the login starts: one line at once, not a 300-second wait.
    @Test(.timeLimit(.minutes(1)))
    func aProviderDownAtTheStartIsReportedAtOnce() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        await provider.stop()
        // The default timeout (300 s) would outlast this bound: ending within it means it did not wait.
        let login = try await harness.authctl(["login", "work", "--no-browser"], timeout: 45)
        #expect(login.status == 75, "\(login)\n\(harness.daemonLog)")
        #expect(login.stderr.contains("Cannot start a login for 'work'"), "\(login)")
        #expect(login.stderr.split(separator: "\n").count == 1, "\(login.stderr)")
        #expect(!login.stdout.hasPrefix("http"), "a URL was printed: \(login.stdout)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// The account's wire state in `authctl status NAME --json`.
    func state(_ name: String, _ harness: BrokerHarness) async throws -> String? {
        let run = try await harness.authctl(["status", name, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        return (object?["accounts"] as? [[String: Any]])?.first?["state"] as? String
    }

    /// `authctl login NAME --cancel` ends the pending login: the waiting login reports it, the
    /// status shows none, and the redirect that arrives afterwards signs nobody in.
    @Test(.timeLimit(.minutes(1)))
    func loginCancelEndsThePendingLogin() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        let login = try harness.spawnAuthctl(["login", "work", "--no-browser", "--timeout", "60"])
        let url = try await harness.authorizationURL(printedBy: login)
        #expect(try await state("work", harness) == "pending_login")
        let cancel = try await harness.authctl(["login", "work", "--cancel"])
        #expect(cancel.status == 0 && cancel.stderr.contains("Cancelled the pending login of 'work'."), "\(cancel)")
        #expect(await login.waitForExit(timeout: 30) == 1, "\(login.stderr)")
        #expect(login.stderr.contains("was cancelled"), "\(login.stderr)")
        #expect(try await state("work", harness) == "logged_out")
        _ = try? await provider.playBrowser(url)
        #expect(try await harness.authctl(["token", "work"]).status == 77)
        let again = try await harness.authctl(["login", "work", "--cancel"])
        #expect(again.status == 1 && again.stderr.contains("No login is pending for 'work'."), "\(again)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// Ctrl-C (SIGINT) in the waiting `authctl login` cancels the login in the daemon too.
    @Test(.timeLimit(.minutes(1)))
    func interruptingTheWaitingLoginCancelsIt() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        let login = try harness.spawnAuthctl(["login", "work", "--no-browser", "--timeout", "60"])
        _ = try await harness.authorizationURL(printedBy: login)
        #expect(try await state("work", harness) == "pending_login")
        login.signal(SIGINT)
        #expect(await login.waitForExit(timeout: 30) == 130, "\(login.stderr)")
        #expect(login.stderr.contains("login to 'work' cancelled."), "\(login.stderr)")
        #expect(try await state("work", harness) == "logged_out")
        #expect(await harness.stopDaemon() == 0)
    }
}
