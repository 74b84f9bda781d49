import Foundation
import TestSupport
import Testing

/// Login injection (docs/security.md, "Other local users"): another local user who reads a
/// pending login's authorization URL can sign in as themselves and have their browser deliver the
/// code to our loopback listener. Two fences, each with the real binaries against the mock: the
/// URL never appears in any process's argv (a second real user scans `/proc/*/cmdline` while the
/// browser runs), and a login that signs in another user than the account's is refused unless
/// `--new-subject` says it is meant.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct LoginInjectionTests {
    static let canRun = geteuid() == 0 && OtherUser.setpriv != nil && OtherUser.useradd != nil
    static let why = "needs root, setpriv (util-linux) and useradd (passwd) to read /proc as another user"

    /// The browser (`hold-browser`) records its arguments and stays running until the test
    /// releases it, so the scan sees it; the scan runs as the real user `abtest1` and prints every
    /// other process's command line. None may hold the login's `state` or the authorize endpoint,
    /// and that user cannot read the page the browser was handed. Then the page does its job: the
    /// test follows it as the browser and the login completes; the page is gone afterwards.
    @Test(.enabled(if: canRun, .init(rawValue: why)))
    func anotherUserReadingEveryCommandLineNeverSeesTheAuthorizationURL() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        let spy = try await OtherUser.make("abtest1", authctlIn: harness.root)
        let bin = harness.root + "/fake-bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let (arguments, release) = (harness.root + "/browser.args", harness.root + "/release")
        defer { FileManager.default.createFile(atPath: release, contents: nil) }  // lets the browser go
        let holdBrowser = """
            #!/bin/sh
            for a in "$@"; do printf '%s\\n' "$a"; done > '\(arguments).tmp' && mv '\(arguments).tmp' '\(arguments)'
            while [ ! -e '\(release)' ] && [ -e '\(arguments)' ]; do sleep 0.1; done

            """
        #expect(
            FileManager.default.createFile(
                atPath: bin + "/hold-browser", contents: Data(holdBrowser.utf8), attributes: [.posixPermissions: 0o755]))

        let login = try harness.spawnAuthctl(
            ["login", "work", "--browser", "hold-browser", "--timeout", "60"],
            prefix: ["/usr/bin/env", "PATH=\(bin):/usr/bin:/bin"])
        let url = try await harness.authorizationURL(printedBy: login)
        let state = try #require(
            URLComponents(string: url)?.queryItems?.first { $0.name == "state" }?.value, "no state in \(url)")
        let started = await SpawnedProcess.eventually(timeout: 30) {
            FileManager.default.fileExists(atPath: arguments) || !login.isRunning
        }
        #expect(started, "the browser did not start: \(login.stderr)")
        let given = try String(contentsOfFile: arguments, encoding: .utf8).split(separator: "\n").map(String.init)

        // Another real user reads every process's argv while the browser runs (its own shell aside).
        let scan = """
            for d in /proc/[0-9]*; do
              p=${d#/proc/}; [ "$p" = "$$" ] && continue
              c=$(tr '\\000' ' ' < "$d/cmdline" 2>/dev/null) || continue
              [ -n "$c" ] && printf '%s %s\\n' "$p" "$c"
            done
            echo scan-complete
            """
        let scanned = try await Self.run(spy.prefix + ["/bin/sh", "-c", scan], in: harness.root, name: "scan")
        #expect(scanned.status == 0 && scanned.stdout.contains("scan-complete"), "\(scanned.stderr)")
        let lines = scanned.stdout.split(separator: "\n")
        // The scan did see the browser (so it would have seen the URL in its argv).
        #expect(lines.contains { $0.contains("hold-browser") }, "the browser's process was not seen")
        // Only the pids are reported: the lines hold the login's state.
        let leakingPIDs = lines.filter { $0.contains(state) || $0.contains(provider.issuer + "/authorize") }
            .map { String($0.prefix { $0 != " " }) }
        #expect(leakingPIDs.count == 0, "another user read the authorization URL in the argv of pids \(leakingPIDs)")

        // The browser got one argument, a file:// page, which that user cannot read.
        #expect(given.count == 1 && given.first?.hasPrefix("file:///") == true, "\(given)")
        let page = try #require(LoginPageReader.path(of: given.first ?? ""), "\(given)")
        let peek = try await Self.run(spy.prefix + ["/bin/cat", page], in: harness.root, name: "peek")
        #expect(peek.status != 0 && !peek.stdout.contains(state), "another user read the page")
        var info = stat()
        #expect(stat(page, &info) == 0 && info.st_mode & 0o777 == 0o600, "page mode \(String(info.st_mode, radix: 8))")
        #expect(stat((page as NSString).deletingLastPathComponent, &info) == 0 && info.st_mode & 0o777 == 0o700)

        // The page forwards to exactly the URL; followed as the browser, the login completes.
        #expect(LoginPageReader.target(of: given[0]) == url)
        #expect(try await provider.playBrowser(url) == 200)
        #expect(await login.waitForExit(timeout: 30) == 0, "\(login.stderr)")
        #expect(!FileManager.default.fileExists(atPath: page), "the page outlived the login")
        #expect(await harness.stopDaemon() == 0)
    }

    /// The mock signs in whoever its `subject` knob names. The account's user signs in, then the
    /// mock names another user: that login fails with one line naming both and `--new-subject`,
    /// the account keeps its user and token — also after a daemon restart — and the same login
    /// with `--new-subject` replaces them. After a logout the account still names its user.
    @Test func aLoginAsAnotherUserIsRefusedUnlessNewSubjectAndTheOldTokensStay() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let token = try await harness.token("work")
        try await provider.configure(#"{"subject": "intruder-user"}"#)

        for restart in [false, true] {
            if restart {
                #expect(await harness.stopDaemon() == 0)
                try await harness.startDaemon()
            }
            let refused = try await harness.login("work", provider: provider)
            #expect(refused.status == 1, "\(refused)")
            let lines = refused.stderr.split(separator: "\n").filter { $0.contains("failed") }
            #expect(lines.count == 1, "\(refused.stderr)")
            let line = String(lines.first ?? "")
            #expect(line.contains("signed in a different user ('intruder-user') than the account's ('mock-user')"), "\(line)")
            #expect(line.contains("authctl login work --new-subject"), "\(line)")
            #expect(try await harness.token("work") == token, "the refused login replaced the tokens")
            // The other user's tokens are not kept anywhere: revoked at the provider.
            let revocations = restart ? 2 : 1
            #expect(try await SpawnedProcess.eventually { try await provider.stats.revocations >= revocations })
            let show = try await harness.authctl(["account", "show", "work"])
            #expect(show.stdout.contains("subject: mock-user"), "\(show)")
        }

        let login = try harness.spawnAuthctl(["login", "work", "--no-browser", "--new-subject", "--timeout", "30"])
        #expect(try await provider.playBrowser(try await harness.authorizationURL(printedBy: login)) == 200)
        #expect(await login.waitForExit(timeout: 40) == 0, "\(login.stderr)")
        #expect(login.stderr.contains("Signed in to 'work' as intruder-user."), "\(login.stderr)")
        #expect(try await harness.token("work") != token)
        let show = try await harness.authctl(["account", "show", "work"])
        #expect(show.stdout.contains("subject: intruder-user"), "\(show)")

        // A logout forgets the tokens, not the user: the next login must still be that user.
        #expect(try await harness.authctl(["logout", "work"]).status == 0)
        #expect(await harness.stopDaemon() == 0)  // and a restart does not forget it either
        try await harness.startDaemon()
        try await provider.configure(#"{"subject": "mock-user"}"#)
        let afterLogout = try await harness.login("work", provider: provider)
        #expect(afterLogout.status == 1, "\(afterLogout)")
        #expect(afterLogout.stderr.contains("signed in a different user ('mock-user') than the account's ('intruder-user')"))
        #expect(try await harness.authctl(["token", "work"]).status != 0, "a refused login stored tokens")
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    /// Runs `command` to its end with its output in `directory`.
    static func run(_ command: [String], in directory: String, name: String) async throws -> BrokerHarness.Run {
        let base = directory + "/\(name)-\(UInt32.random(in: 0...UInt32.max))"
        let process = try SpawnedProcess(
            command, environment: ["PATH": "/usr/bin:/bin"], stdoutPath: base + ".out", stderrPath: base + ".err")
        let status = await process.waitForExit(timeout: 60)
        return BrokerHarness.Run(status: status, stdout: process.stdout, stderr: process.stderr, pid: process.pid)
    }
}
