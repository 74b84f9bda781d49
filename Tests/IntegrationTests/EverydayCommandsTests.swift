import Foundation
import Testing

/// Issue 29's everyday commands with the real binaries against the spawned mock: `status` as a
/// person reads it on a terminal (80 columns, relative times, an exit status that says whether all
/// is fine), `refresh` (now, or a login for more scopes), `token --id-token`, and `logout` keeping
/// the ID token off the screen.
@Suite(.timeLimit(.minutes(2)))
struct EverydayCommandsTests {
    /// `authctl --socket S ARGS…` on a pseudo-terminal (util-linux `script`, which exits with the
    /// command's status: -e); the terminal's output, lines ending in CR LF, in `stdout`.
    func onATerminal(_ arguments: [String], _ harness: BrokerHarness) async throws -> BrokerHarness.Run {
        let command = [try BrokerHarness.binary("authctl"), "--socket", harness.socket] + arguments
        let line = command.map { "'\($0)'" }.joined(separator: " ")
        let output = harness.root + "/tty-\(UInt64.random(in: 0...UInt64.max)).out"
        var environment = harness.environment
        environment["SHELL"] = "/bin/bash"  // what script(1) runs the command with
        let terminal = try SpawnedProcess(
            ["script", "-qec", line, "/dev/null"], environment: environment, stdoutPath: output, stderrPath: output)
        let status = await terminal.waitForExit(timeout: 30)
        return BrokerHarness.Run(status: status, stdout: terminal.stdout, stderr: "", pid: terminal.pid)
    }

    @Test func statusOnATerminalFitsEightyColumnsWithRelativeTimesAndFailsWhileAnAccountNeedsAttention() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        // Many long scopes: the SCOPES column must be cut, not the line wrapped.
        let scopes = ["openid", "offline_access"] + (1...6).map { "https://api.example.com/auth/scope-number-\($0).readonly" }
        let add = try await harness.authctl(
            ["account", "add", "work", "--issuer", provider.issuer, "--client-id", "mock-client"]
                + scopes.flatMap { ["--scope", $0] })
        #expect(add.status == 0, "\(add)")
        #expect(try await harness.login("work", provider: provider).status == 0)
        #expect(try await harness.authctl(["refresh", "work"]).status == 0)  // a last refresh to show

        let fine = try await onATerminal(["status"], harness)
        #expect(fine.status == 0, "\(fine.stdout)")
        let lines = fine.stdout.split(whereSeparator: \.isNewline).map(String.init)
        #expect(lines.first?.hasPrefix("ACCOUNT  STATE   EXPIRES") == true, "\(fine.stdout)")
        #expect(lines.allSatisfy { $0.count <= 80 }, "wider than 80 columns:\n\(fine.stdout)")
        let work = try #require(lines.first { $0.hasPrefix("work ") }, "\(fine.stdout)")
        #expect(
            work.contains(" in ") && work.contains("s ago") && work.contains("openid offline_access") && work.hasSuffix("…"),
            "\(work)")
        #expect(!fine.stdout.contains("mock-user"), "the subject belongs in `status work`: \(fine.stdout)")

        // A logged-out account needs attention: the exit status says so, and the table names it.
        try await harness.addAccount("spare", provider: provider)
        let attention = try await onATerminal(["status"], harness)
        #expect(attention.status == 1, "\(attention.stdout)")
        #expect(attention.stdout.contains("needs attention: spare"), "\(attention.stdout)")
        #expect(attention.stdout.split(whereSeparator: \.isNewline).allSatisfy { $0.count <= 80 }, "\(attention.stdout)")
        #expect(try await harness.authctl(["status", "work"]).status == 0)
        #expect(try await harness.authctl(["status", "--json"]).status == 0, "--json leaves the judgement to its reader")

        // One account in full: absolute times too, the subject, every scope.
        let one = try await harness.authctl(["status", "work"])
        #expect(one.stdout.contains("subject:       mock-user"), "\(one.stdout)")
        #expect(one.stdout.contains("scope-number-6.readonly"), "\(one.stdout)")
        #expect(one.stdout.contains("Z)"), "\(one.stdout)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func refreshAsksTheProvidersTokenEndpointOnceAndPrintsNoToken() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let before = try await harness.token("work")
        #expect(try await provider.stats.refreshes == 0)

        let refresh = try await harness.authctl(["refresh", "work"])
        #expect(refresh.status == 0, "\(refresh)")
        #expect(refresh.stdout.isEmpty, "refresh printed on stdout")
        #expect(refresh.stderr.contains("Refreshed 'work'. The new token expires in"), "\(refresh.stderr)")
        #expect(try await provider.stats.refreshes == 1)
        let after = try await harness.token("work")
        let replaced = after != before  // compared as a Bool: a failure must not print tokens
        #expect(replaced, "the same token came back")
        #expect(try await provider.accepts(after))
        let status = try await harness.authctl(["status", "work", "--json"])
        #expect(status.stdout.contains("\"last_refresh\" : \"20"), "\(status.stdout)")

        // The last refresh is kept with the tokens: a restarted daemon still knows it.
        #expect(await harness.stopDaemon() == 0)
        try await harness.startDaemon()
        let restarted = try await harness.authctl(["status", "work", "--json"])
        let lastRefresh = { (text: String) in text.split(separator: "\n").first { $0.contains("last_refresh") } }
        #expect(
            lastRefresh(restarted.stdout) != nil && lastRefresh(restarted.stdout) == lastRefresh(status.stdout),
            "\(restarted.stdout)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func refreshWithoutARefreshTokenSaysNoRefreshHappened() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"issueRefreshTokens": false}"#)
        try await harness.signIn("work", provider: provider)
        let refresh = try await harness.authctl(["refresh", "work"])
        #expect(refresh.status == 1, "\(refresh)")
        #expect(refresh.stderr.contains("'work' was not refreshed: it holds no refresh token"), "\(refresh.stderr)")
        #expect(refresh.stdout.isEmpty)
        #expect(try await provider.stats.refreshes == 0)
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func refreshWithAScopeTheGrantLacksStartsALoginAskingForTheUnion() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)

        // Granted already: a plain refresh, no login.
        let granted = try await harness.authctl(["refresh", "work", "--scope", "openid"])
        #expect(granted.status == 0 && granted.stderr.contains("Refreshed 'work'"), "\(granted)")
        #expect(try await provider.stats.authorizationRequests == 1)

        let refresh = try harness.spawnAuthctl(["refresh", "work", "--scope", "profile", "--no-browser", "--timeout", "30"])
        let url = try await harness.authorizationURL(printedBy: refresh)
        let scope = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "scope" }?.value)
        #expect(scope == "openid offline_access profile", "\(url)")
        _ = try await provider.playBrowser(url)
        #expect(await refresh.waitForExit(timeout: 40) == 0, "\(refresh.stderr)")
        #expect(
            refresh.stderr.contains(
                "'work' was not granted profile: starting a login that asks for openid offline_access profile."),
            "\(refresh.stderr)")
        let status = try await harness.authctl(["status", "work", "--json"])
        #expect(status.stdout.contains("\"scope\" : \"openid offline_access profile\""), "\(status.stdout)")
        #expect(try await provider.stats.codeExchanges == 2)

        let bad = try await harness.authctl(["refresh", "work", "--scope", "a\"b"])
        #expect(bad.status == 64, "\(bad)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func tokenWithIDTokenPrintsTheIDTokenAlone() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let idToken = try await harness.token("work", ["--id-token"])
        #expect(idToken.split(separator: ".").count == 3, "not a JWS")
        let notTheAccessToken = idToken != (try await harness.token("work"))
        #expect(notTheAccessToken)
        let kube = try await harness.authctl(["kube-credential", "work", "--id-token"])
        let credential = try JSONSerialization.jsonObject(with: Data(kube.stdout.utf8)) as? [String: Any]
        let kubeToken = (credential?["status"] as? [String: Any])?["token"] as? String
        let same = kubeToken == idToken
        #expect(same, "kube-credential --id-token serves another ID token")
        let json = try await harness.authctl(["token", "work", "--id-token", "--json"])
        let grant = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let printed = grant?["id_token"] as? String == idToken
        #expect(json.status == 0 && printed, "exit \(json.status)")
        #expect(grant?["expires_at"] is String)
        let narrowed = try await harness.authctl(["token", "work", "--id-token", "--scope", "openid"])
        #expect(narrowed.status == 64, "\(narrowed.stderr)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func logoutOnATerminalPrintsTheEndSessionURLWithoutTheIDToken() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let idToken = try await harness.token("work", ["--id-token"])
        let logout = try await onATerminal(["logout", "work"], harness)
        #expect(logout.status == 0, "\(logout.stdout)")
        let url = try #require(
            logout.stdout.split(whereSeparator: \.isNewline).first { $0.hasPrefix("http") }.map(String.init), "\(logout.stdout)")
        #expect(url.contains("client_id=") && !url.contains("id_token_hint"), "\(url)")
        #expect(!logout.stdout.contains(idToken), "the ID token reached the terminal")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func logoutWithJSONPrintsTheWholeResult() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let logout = try await harness.authctl(["logout", "work", "--json"])
        #expect(logout.status == 0, "\(logout.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(logout.stdout.utf8)) as? [String: Any]
        #expect(object?["revoked"] as? Bool == true)
        #expect((object?["end_session_url"] as? String)?.contains("id_token_hint=") == true)
        #expect(await harness.stopDaemon() == 0)
    }
}
