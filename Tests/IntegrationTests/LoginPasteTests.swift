import Foundation
import TestSupport
import Testing

/// The paste fallback (issue 11 §4, docs/guide.md) with the real binaries: the browser ran on
/// another machine, so its redirect to this machine's loopback listener never arrived; the user
/// pastes the address it ended on into the waiting `authctl login` (on a terminal: here a pty
/// from util-linux `script`), or hands it over with `authctl callback URL` from a second terminal.
@Suite(.timeLimit(.minutes(2)))
struct LoginPasteTests {
    /// `authctl login NAME --no-browser` on a pseudo-terminal; the test types into `script`'s stdin,
    /// which the terminal passes on as the user's keystrokes (and echoes, as a terminal does).
    /// `background`: started as a job of an interactive-style bash (`set -m; … & wait`), so it is
    /// not the terminal's foreground process group.
    func loginOnATerminal(_ name: String, _ harness: BrokerHarness, background: Bool = false) throws -> SpawnedProcess {
        let command = [
            try BrokerHarness.binary("authctl"), "--socket", harness.socket, "login", name, "--no-browser", "--timeout", "60",
        ]
        let line = command.map { "'\($0)'" }.joined(separator: " ")
        let output = harness.root + "/tty-\(UInt64.random(in: 0...UInt64.max)).out"
        var environment = harness.environment
        environment["SHELL"] = "/bin/bash"  // what script(1) runs the command with
        return try SpawnedProcess(
            ["script", "-qec", background ? "set -m; \(line) & wait $!" : line, "/dev/null"], environment: environment,
            stdoutPath: output, stderrPath: output, keepStdinOpen: true)
    }

    /// The authorization URL in a terminal's output (lines end in CR LF there).
    func authorizationURL(on terminal: SpawnedProcess) async throws -> String {
        var url: String?
        _ = await SpawnedProcess.eventually(timeout: 20) {
            url = terminal.stdout.split(whereSeparator: \.isNewline).first { $0.hasPrefix("http") }.map(String.init)
            return url != nil || !terminal.isRunning
        }
        return try #require(url, "no URL: \(terminal.stdout)")
    }

    @Test func aPastedLoopbackRedirectCompletesTheLoginAndAForeignOneIsRefused() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        let login = try loginOnATerminal("work", harness)
        let url = try await authorizationURL(on: login)
        let hint = await SpawnedProcess.eventually {
            login.stdout.contains("or paste the address your browser ended on and press Enter")
        }
        #expect(hint, "\(login.stdout)")
        let location = try await provider.redirect(for: url)
        #expect(location.hasPrefix("http://127.0.0.1:"), "\(location)")
        let query = try #require(location.split(separator: "?", maxSplits: 1).last)

        // Another origin with the right state and code: refused, the login keeps waiting.
        try login.process.writeToStdin("http://127.0.0.2:\(Self.port(of: location))/callback?\(query)\n")
        let refused = await SpawnedProcess.eventually { login.stdout.contains("that is not the redirect of this login") }
        #expect(refused && login.isRunning, "\(login.stdout)")

        try login.process.writeToStdin("  " + location + "\n")
        #expect(await login.waitForExit(timeout: 30) == 0, "\(login.stdout)")
        #expect(login.stdout.contains("Signed in to 'work' as mock-user."), "\(login.stdout)")
        #expect(try await harness.token("work").isEmpty == false)
        #expect(try await provider.stats.codeExchanges == 1)

        #expect(await harness.stopDaemon() == 0)
        let code = try #require(query.split(separator: "&").first { $0.hasPrefix("code=") })
        #expect(!harness.daemonLog.contains(String(code.dropFirst(5))), "the code reached the daemon log")
        await provider.stop()
    }

    /// `authctl login work &`: what is typed belongs to the shell. Reading it would also stop the
    /// job (SIGTTIN), and bash's `wait` would then return with the job stopped.
    @Test func aLoginInTheBackgroundDoesNotReadTheTerminal() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        let login = try loginOnATerminal("work", harness, background: true)
        let url = try await authorizationURL(on: login)
        #expect(!login.stdout.contains("paste the address"), "\(login.stdout)")
        let location = try await provider.redirect(for: url)
        try login.process.writeToStdin("typed for the shell\n")
        let callback = try await harness.authctl(["callback", location])
        #expect(callback.status == 0, "\(callback)")
        #expect(await login.waitForExit(timeout: 30) == 0, "\(login.stdout)")
        #expect(login.stdout.contains("Signed in to 'work' as mock-user."), "\(login.stdout)")
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    @Test func authctlCallbackCompletesALoopbackLoginFromASecondTerminal() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        let login = try harness.spawnAuthctl(["login", "work", "--no-browser", "--timeout", "60"])
        let url = try await harness.authorizationURL(printedBy: login)
        // Without a terminal on stdin nothing is read from it, and no paste is offered.
        #expect(!login.stderr.contains("paste the address"), "\(login.stderr)")
        let location = try await provider.redirect(for: url)
        let path = try #require(location.firstIndex(of: "?").map { location[..<$0] })

        let foreign = try await harness.authctl(["callback", location.replacingOccurrences(of: String(path), with: path + "x")])
        #expect(foreign.status == 1 && foreign.stderr.contains("No pending login matches"), "\(foreign)")
        #expect(login.isRunning, "a redirect for another path must leave the pending login alone")

        let callback = try await harness.authctl(["callback", location])
        #expect(callback.status == 0 && callback.stderr.contains("Signed in to 'work' as mock-user."), "\(callback)")
        #expect(await login.waitForExit(timeout: 20) == 0, "\(login.stderr)")
        let replay = try await harness.authctl(["callback", location])
        #expect(replay.status == 1, "a redirect used twice: \(replay)")
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    static func port(of url: String) -> String {
        String(url.split(separator: ":")[2].prefix { $0.isNumber })
    }
}
