import Foundation
import TestSupport
import Testing

/// authctl's Embedded Swift front (Sources/authctl): it answers the success path of `authctl
/// [--socket PATH] token NAME` itself and runs authctl-full, with the same arguments, for
/// everything else. Which binary served a token is visible in the daemon's audit line (`exe=`).
@Suite struct AuthctlFrontTests {
    static let front = URL(fileURLWithPath: (try? BrokerHarness.binary("authctl")) ?? "").resolvingSymlinksInPath().path
    static var full: String { front + "-full" }

    /// The `exe=` of each `audit: token` line so far.
    static func tokenAudits(_ harness: BrokerHarness) -> [String] {
        harness.daemonLog.split(separator: "\n").filter { $0.contains("audit: token ") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("exe=") }.map { String($0.dropFirst(4)) }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func theFrontServesAPlainTokenItselfAndPrintsExactlyWhatTheFullCLIPrints() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let byFront = try await harness.authctl(["token", "work"])
        let byFull = try await harness.authctl(["token", "work"], authctlPath: Self.full)
        #expect(byFront.status == 0 && byFull.status == 0, "\(byFront) \(byFull)")
        #expect(!byFront.line.isEmpty && byFront.stdout == byFull.stdout && byFront.stderr.isEmpty, "\(byFront) \(byFull)")
        #expect(Self.tokenAudits(harness) == [Self.front, Self.full], "\(harness.daemonLog)")
        // AUTHBROKER_SOCKET instead of --socket: the same path, still the front.
        let process = try SpawnedProcess(
            [try BrokerHarness.binary("authctl"), "token", "work"],
            environment: harness.environment.merging(["AUTHBROKER_SOCKET": harness.socket]) { $1 },
            stdoutPath: harness.root + "/env.out", stderrPath: harness.root + "/env.err")
        #expect(await process.waitForExit(timeout: 30) == 0 && process.stdout == byFull.stdout, "\(process.stderr)")
        #expect(Self.tokenAudits(harness).last == Self.front)
        // --min-ttl after the name (a refresh when less remains): the front too, same output.
        let fresh = try await harness.authctl(["token", "work", "--min-ttl", "86400"])
        let freshFull = try await harness.authctl(["token", "work", "--min-ttl", "86400"], authctlPath: Self.full)
        #expect(fresh.status == 0 && freshFull.status == 0 && fresh.stdout.count == byFull.stdout.count, "\(fresh) \(freshFull)")
        #expect(Array(Self.tokenAudits(harness).suffix(2)) == [Self.front, Self.full], "\(harness.daemonLog)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func everythingElseIsTheFullCLIsWithItsMessagesAndExitCodes() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        try await harness.addAccount("spare", provider: provider)
        // Other options, unknown and signed-out accounts, bad names: the same answer from both.
        for arguments in [
            ["token", "work", "--json"], ["token", "work", "--min-ttl", "060"], ["token", "work", "--min-ttl", "86401"],
            ["token", "--min-ttl", "60", "work"], ["token", "nosuch"], ["token", "spare"],
            ["token", "bad name"], ["token", "-work"], ["token"], ["status"], [],
        ] {
            let viaFront = try await harness.authctl(arguments)
            let direct = try await harness.authctl(arguments, authctlPath: Self.full)
            #expect(viaFront.status == direct.status, "\(arguments): \(viaFront) vs \(direct)")
            #expect(viaFront.stderr == direct.stderr, "\(arguments): \(viaFront.stderr) vs \(direct.stderr)")
            if arguments.first != "token" || arguments.count > 2 { continue }
            #expect(viaFront.stdout == direct.stdout, "\(arguments)")
        }
        // Every token served in the loop was served to authctl-full: the front handed the --json
        // request and the --min-ttl spellings it does not take over without asking itself.
        #expect(Set(Self.tokenAudits(harness)) == [Self.full], "\(Self.tokenAudits(harness))")
        await harness.stopDaemon()
        let stopped = try await harness.authctl(["token", "work"])
        let stoppedDirect = try await harness.authctl(["token", "work"], authctlPath: Self.full)
        #expect(stopped.status == 69 && stopped.stderr == stoppedDirect.stderr, "\(stopped) vs \(stoppedDirect)")
    }

    /// A socket in a temp-dir fallback directory (`authbroker-UID`, which anyone could have made
    /// first) is left to the full CLI and its checked directory: here the directory is
    /// world-writable and holds a link to the real daemon's socket, so a front that connected
    /// itself would print the token.
    @Test(.timeLimit(.minutes(1)))
    func aSocketInAFallbackDirectoryIsLeftToTheFullCLIsDirectoryCheck() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let directory = harness.root + "/shared/authbroker-\(getuid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o777)
        try FileManager.default.createSymbolicLink(atPath: directory + "/authbroker.sock", withDestinationPath: harness.socket)
        let planted = directory + "/authbroker.sock"
        let process = try SpawnedProcess(
            [try BrokerHarness.binary("authctl"), "--socket", planted, "token", "work"], environment: harness.environment,
            stdoutPath: harness.root + "/planted.out", stderrPath: harness.root + "/planted.err")
        #expect(await process.waitForExit(timeout: 30) != 0)
        #expect(process.stdout.isEmpty)
        #expect(process.stderr.contains("refusing the socket directory"), "\(process.stderr)")
        #expect(Self.tokenAudits(harness).isEmpty, "\(harness.daemonLog)")
        #expect(await harness.stopDaemon() == 0)
    }

    /// authctl copied alone (docs/remote.md has users scp it to an SSH host): the token still
    /// comes, `--help` and `--version` are answered, anything else names what is missing.
    @Test(.timeLimit(.minutes(2)))
    func aLoneFrontServesTokensAndAnswersHelpAndVersion() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let lone = directory.path + "/authctl"
        try ProductBinary.copyExecutable(try BrokerHarness.binary("authctl"), to: lone)
        let run = { (arguments: [String]) async throws -> BrokerHarness.Run in
            try await harness.authctl(arguments, authctlPath: lone)
        }

        let token = try await run(["token", "work"])
        #expect(token.status == 0 && !token.line.isEmpty && token.stderr.isEmpty, "\(token)")
        #expect(Self.tokenAudits(harness).last == URL(fileURLWithPath: lone).resolvingSymlinksInPath().path)
        // The version is the full CLI's, character for character (the front keeps its own copy).
        let version = try await run(["--version"])
        let fullVersion = try await harness.authctl(["--version"], authctlPath: Self.full)
        #expect(version.status == 0 && version.stdout == fullVersion.stdout, "\(version) \(fullVersion)")
        for help in [["--help"], ["help"], ["status", "--help"]] {
            let answer = try await run(help)
            #expect(
                answer.status == 0 && answer.stdout.hasPrefix("usage: authctl [--socket PATH] token NAME"), "\(help): \(answer)")
            #expect(answer.stdout.contains("copy authctl-full into the same\ndirectory"), "\(answer)")
        }
        let status = try await run(["status"])
        #expect(status.status == 1 && status.stdout.isEmpty, "\(status)")
        #expect(
            status.stderr.contains("'status' needs authctl-full, which is not at \(directory.path)/authctl-full"), "\(status)")
        // A token that does not come: why, briefly, with the full CLI's exit code.
        let unknown = try await run(["token", "nobody"])
        #expect(unknown.status == 1 && unknown.stderr.hasPrefix("authctl: the daemon has no account 'nobody'; "), "\(unknown)")
        #expect(unknown.stderr.contains("authctl-full, which says more, is not at \(directory.path)/authctl-full"), "\(unknown)")
        try await harness.addAccount("spare", provider: provider)
        let login = try await run(["token", "spare"])
        #expect(login.status == 77 && login.stderr.hasPrefix("authctl: 'spare' needs a login"), "\(login)")
        let away = try SpawnedProcess(
            [lone, "--socket", harness.runtime + "/none.sock", "token", "work"], environment: ["PATH": "/usr/bin:/bin"],
            stdoutPath: directory.path + "/away.out", stderrPath: directory.path + "/away.err")
        #expect(await away.waitForExit(timeout: 30) == 69, "\(away.stderr)")
        #expect(
            away.stderr.hasPrefix("authctl: no authbrokerd of yours answers at \(harness.runtime)/none.sock"), "\(away.stderr)")
        // Alone, without --socket: the usage, on stderr, as a usage error.
        let bare = try SpawnedProcess(
            [lone], environment: ["PATH": "/usr/bin:/bin"], stdoutPath: directory.path + "/out",
            stderrPath: directory.path + "/err")
        #expect(
            await bare.waitForExit(timeout: 30) == 64 && bare.stdout.isEmpty && bare.stderr.hasPrefix("usage: "), "\(bare.stderr)"
        )
        #expect(await harness.stopDaemon() == 0)
    }
}
