import Foundation
import Testing

/// docs/guide.md's narrowed-token and caller-policy examples and docs/remote.md's, run as written
/// (`DocExample`) with the real authctl and authbrokerd against the mock provider: every command
/// must succeed unless the doc shows an error, and each result the doc shows must be what it
/// prints (paths aside). Only placeholders the docs declare are put in: `$ISSUER`, the API URL
/// `https://api.example.com/me`, and `/run/user/1000` (here) and `/run/user/1001` (the SSH host),
/// and uid 1000's own directory of restricted sockets (`restricted/1000/`, here the test's uid).
@Suite(.serialized) struct GuideExamplesTests {
    static let api = "https://api.example.com/me"

    /// Runs the examples one by one, as a user types them: `CMD &` is left running, `ssh`,
    /// `docker` lines are stood in for (docs/remote.md says how), everything else goes to sh.
    /// `ABCD-EFGH`, the one-time code the doc says a notification shows, is the next code the
    /// daemon's notify hook got (`NotifiedCodes`), as the user would read it there.
    final class Runner {
        let harness: BrokerHarness
        let provider: MockProviderProcess
        var environment: [String: String]
        var background: [SpawnedProcess] = []
        var relays: [BackgroundServer] = []
        let remoteRuntime: String
        let codes: NotifiedCodes
        var codesUsed = 0

        init(_ harness: BrokerHarness, _ provider: MockProviderProcess) throws {
            self.harness = harness
            self.provider = provider
            remoteRuntime = harness.root + "/remote-run"
            codes = NotifiedCodes(harness)
            let bin = URL(fileURLWithPath: try BrokerHarness.binary("authctl")).deletingLastPathComponent().path
            environment = harness.environment
            environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            environment["ISSUER"] = provider.issuer
            // The doc's `authctl login` opens a browser: curl plays it (the mock approves at once),
            // from the page authctl hands the browser.
            environment["AUTHBROKER_BROWSER"] = try LoginPageReader.installFollower(in: harness.root) + " %s"
        }

        static let shownCode = "ABCD-EFGH"

        func placeholders(_ text: String) -> String {
            text.replacingOccurrences(of: GuideExamplesTests.api, with: provider.issuer + "/resource")
                .replacingOccurrences(of: "/run/user/1000", with: harness.runtime)
                .replacingOccurrences(of: "/restricted/1000/", with: "/restricted/\(getuid())/")
                .replacingOccurrences(of: "/run/user/1001", with: remoteRuntime)
        }

        func sh(_ script: String) async throws -> BrokerHarness.Run {
            let name = harness.root + "/doc-\(UInt64.random(in: 0...UInt64.max))"
            let process = try SpawnedProcess(
                ["/bin/sh", "-c", script], environment: environment, stdoutPath: name + ".out", stderrPath: name + ".err")
            let status = await process.waitForExit(timeout: 60)
            return BrokerHarness.Run(status: status, stdout: process.stdout, stderr: process.stderr, pid: process.pid)
        }

        /// The words of `line` after its first, as sh expands them.
        func arguments(_ line: String) async throws -> [String] {
            let words = line.drop { $0 != " " }
            return try await sh("printf '%s\\n'" + words).stdout.split(separator: "\n").map(String.init)
        }

        /// Runs one example; nil for one left running in the background.
        func run(_ example: DocExample) async throws -> BrokerHarness.Run? {
            var command = placeholders(example.command)
            if command.contains(Self.shownCode) {
                codesUsed += 1
                let code = try #require(await codes.code(nil, number: codesUsed), "no notification #\(codesUsed): \(codes.lines)")
                command = command.replacingOccurrences(of: Self.shownCode, with: code)
            }
            // `CMD &   # comment`: the comment is not part of the command, the `&` is.
            let code = command.components(separatedBy: " #")[0].trimmingCharacters(in: .whitespaces)
            if code.hasSuffix("&"), !code.hasSuffix("&&") {
                let script = String(code.dropLast())
                let name = harness.root + "/doc-bg-\(background.count)"
                background.append(
                    try SpawnedProcess(
                        ["/bin/sh", "-c", script], environment: environment, stdoutPath: name + ".out", stderrPath: name + ".err")
                )
                return nil
            }
            if command.hasPrefix("ssh ") { return try await ssh(try await arguments(command)) }
            if command.hasPrefix("docker run ") { return try await docker(try await arguments(command).dropFirst()) }
            return try await sh(command)
        }

        /// `ssh -R REMOTE:LOCAL host`: a relay from REMOTE to LOCAL, as sshd makes; `ssh host CMD`: CMD.
        private func ssh(_ arguments: [String]) async throws -> BrokerHarness.Run {
            if let option = arguments.firstIndex(of: "-R"), option + 1 < arguments.count {
                let sockets = arguments[option + 1].split(separator: ":").map(String.init)
                relays.append(try await BackgroundServer(["forward", sockets[0], sockets[1]], directory: harness.root))
                return BrokerHarness.Run(status: 0, stdout: "", stderr: "", pid: 0)
            }
            return try await sh(arguments.dropFirst().joined(separator: " "))
        }

        /// `docker run [--rm] [--user U] [-v SRC:DST[:ro]]… [-e K=V]… IMAGE CMD…`: CMD with the `-e`
        /// variables, each value or word that names a `-v` target replaced by its source.
        private func docker(_ arguments: ArraySlice<String>) async throws -> BrokerHarness.Run {
            var mounts: [String: String] = [:]
            var variables: [String] = []
            var rest = arguments.dropFirst()  // "run"
            while let option = rest.first, option.hasPrefix("-") {
                let value = rest.dropFirst().first ?? ""
                if option == "-v" {
                    let parts = value.split(separator: ":").map(String.init)
                    if parts.count >= 2 { mounts[parts[1]] = parts[0] }
                } else if option == "-e" {
                    variables.append(value)
                }
                rest = option == "--rm" ? rest.dropFirst() : rest.dropFirst(2)
            }
            let mapped = { (word: String) in
                mounts.first { word.hasSuffix("=" + $0.key) || word == $0.key }.map {
                    word.replacingOccurrences(of: $0.key, with: $0.value)
                } ?? word
            }
            let command = rest.dropFirst().map(mapped)  // after the image
            let quoted = (variables.map(mapped) + command).map { "'" + $0 + "'" }.joined(separator: " ")
            return try await sh("env " + quoted)
        }

        /// Runs every example of `blocks`; each must do what the doc says.
        func check(_ blocks: [[DocExample]]) async throws {
            for example in blocks.joined() {
                guard let run = try await run(example) else { continue }
                let shown = example.expected.map(placeholders)
                let compared = { (text: String) in example.exact ? text : DocExample.withoutPaths(text) }
                if let shown, shown.hasPrefix("authctl: ") {
                    #expect(run.status != 0, "\(example): \(run)")
                    #expect(compared(run.stderr.trimmingCharacters(in: .newlines)) == compared(shown), "\(example): \(run)")
                    continue
                }
                #expect(run.status == 0, "\(example): \(run)\n\(harness.daemonLog)")
                if let shown {
                    #expect(compared(run.line) == compared(shown), "\(example): \(run)")
                }
            }
        }

        func stop() {
            for process in background { process.signal(SIGKILL) }
            for relay in relays { relay.stop() }
        }
    }

    static func start() async throws -> (BrokerHarness, MockProviderProcess, Runner) {
        let resources = #"["https://reports.example.com/", "https://api.example.com/"]"#
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"resources": \#(resources)}"#, defaultSocket: true)
        let runner = try Runner(harness, provider)
        await harness.stopDaemon()
        try await harness.startDaemon(runner.codes.daemonArguments)
        return (harness, provider, runner)
    }

    static func doc(_ name: String) throws -> String {
        try String(contentsOfFile: ChildProcess.repositoryRoot + "/docs/" + name, encoding: .utf8)
    }

    static let narrowed = "## Narrowed tokens: `--scope`, `--resource`, `--audience`"
    static let callerPolicy = "## Caller policy: which programs get an account's tokens"

    @Test(.timeLimit(.minutes(3)))
    func theNarrowedTokenAndCallerPolicyExamplesRunAsWritten() async throws {
        let (harness, _, runner) = try await Self.start()
        defer { runner.stop() }
        let guide = try Self.doc("guide.md")
        let narrowed = DocExample.blocks(in: guide, section: Self.narrowed)
        try #require(narrowed.count == 3 && narrowed.joined().count == 11, "\(narrowed)")
        try await runner.check(narrowed)

        let policy = DocExample.blocks(in: guide, section: Self.callerPolicy)
        try #require(policy.count == 3, "\(policy)")
        try await runner.check(Array(policy[0...1]))
        // `--confirm`: the backgrounded `authctl token work` waits until `authctl approve work`.
        let confirm = policy[2]
        try #require(confirm.count == 5 && confirm[1].command.hasPrefix("authctl token work &"), "\(confirm)")
        try await runner.check([Array(confirm[0...1])])
        let waiting = try #require(runner.background.last)
        let listed = await SpawnedProcess.eventually(timeout: 30) {
            (try? await runner.run(confirm[2]))?.stdout.contains("work\t") == true
        }
        #expect(listed, "nothing waited for approval:\n\(harness.daemonLog)")
        try await runner.check([Array(confirm[3...])])
        #expect(await waiting.waitForExit(timeout: 30) == 0, "\(waiting.stderr)")
        #expect(!waiting.stdout.isEmpty)
        #expect(await harness.stopDaemon() == 0)
    }

    /// docs/remote.md: a restricted socket over a stand-in for `ssh -R` and for a container's bind mount.
    @Test(.timeLimit(.minutes(3)))
    func theRemoteExamplesRunAsWritten() async throws {
        let (harness, provider, runner) = try await Self.start()
        defer { runner.stop() }
        try await harness.signIn("work", provider: provider)
        let blocks = DocExample.blocks(in: try Self.doc("remote.md"))
        try #require(blocks.count == 3 && blocks.joined().count == 7, "\(blocks)")
        try await runner.check(blocks)
        // The remote side's authctl and curl got the same token, through the relay.
        let tokens = try await [
            runner.sh("AUTHBROKER_SOCKET=\(runner.remoteRuntime)/authbroker/remote.sock authctl token work"),
            runner.sh(
                "curl -s --unix-socket \(runner.remoteRuntime)/authbroker/remote.sock -H 'Accept: text/plain' http://localhost/v1/accounts/work/token"
            ),
        ].map(\.line)
        #expect(!tokens[0].isEmpty && tokens[0] == tokens[1], "\(tokens)")
        let status = try await runner.sh("AUTHBROKER_SOCKET=\(runner.remoteRuntime)/authbroker/remote.sock authctl status")
        #expect(status.status != 0 && status.stderr.contains("is restricted"), "\(status)")
        #expect(harness.daemonLog.contains("socket=ci "), "the container's token was not served on ci.sock")
        #expect(await harness.stopDaemon() == 0)
    }
}
