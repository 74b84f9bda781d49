import Foundation
import Testing

/// Issue 29's small things, as a new user meets them with the real binaries: the usage on stderr
/// for `authctl` alone, one "did you mean", `exec` without `--`, huge arguments echoed shortened,
/// the not-running hint for the socket actually used, and the man page's exit codes (64 for a
/// socket path that cannot be a socket and for an issuer the daemon refuses).
@Suite(.timeLimit(.minutes(2)))
struct CommandLineMistakesTests {
    /// `authctl ARGS…` exactly (no --socket added), in the harness's environment.
    func authctl(_ arguments: [String], _ harness: BrokerHarness) async throws -> BrokerHarness.Run {
        let name = harness.root + "/plain-\(UInt64.random(in: 0...UInt64.max))"
        let process = try SpawnedProcess(
            [try BrokerHarness.binary("authctl")] + arguments, environment: harness.environment,
            stdoutPath: name + ".out", stderrPath: name + ".err")
        let status = await process.waitForExit(timeout: 30)
        return BrokerHarness.Run(status: status, stdout: process.stdout, stderr: process.stderr, pid: process.pid)
    }

    @Test func mistakesWithoutADaemonAreUsageErrorsThatSayWhatToType() async throws {
        let harness = try BrokerHarness()  // no daemon: nothing below may need one
        let bare = try await authctl([], harness)
        #expect(bare.status == 64 && bare.stdout.isEmpty && bare.stderr.hasPrefix("usage: authctl"), "\(bare)")

        let typo = try await harness.authctl(["stauts"])
        #expect(
            typo.status == 64 && typo.stderr == "authctl: unknown command 'stauts' (did you mean 'status'?); see: authctl help\n")
        let option = try await harness.authctl(["token", "work", "--min-tt", "5"])
        #expect(option.status == 64 && option.stderr.contains("(did you mean '--min-ttl'?)"), "\(option)")

        let exec = try await harness.authctl(["exec", "work", "env"])
        #expect(
            exec.status == 64
                && exec.stderr == "authctl: 'authctl exec' needs '--' before the command: authctl exec work -- env\n")
        let execOption = try await harness.authctl(["exec", "work", "ls", "-l"])
        #expect(execOption.status == 64 && execOption.stderr.contains("needs '--' before the command"), "\(execOption)")

        let huge = String(repeating: "y", count: 10_000)
        let long = try await harness.authctl(["token", huge])
        #expect(
            long.status == 64 && long.stderr.contains("'\(huge.prefix(60))…'") && long.stderr.count < 200, "\(long.stderr.count)")

        // A socket path longer than sockaddr_un holds: 64, not a generic failure.
        let tooLong = try await authctl(["--socket", harness.root + "/" + String(repeating: "s", count: 120), "status"], harness)
        #expect(tooLong.status == 64 && tooLong.stderr.contains("longer than 107 bytes"), "\(tooLong)")
    }

    @Test func theNotRunningHintNamesTheSocketUsed() async throws {
        let harness = try BrokerHarness()
        let other = harness.root + "/elsewhere.sock"
        let run = try await authctl(["--socket", other, "ping"], harness)
        #expect(run.status == 69, "\(run)")
        #expect(run.stderr.contains("no socket at \(other)") && run.stderr.contains("authbrokerd --socket \(other)"), "\(run)")
        #expect(!run.stderr.contains("systemctl"), "the user unit does not listen there: \(run)")
        // The default socket gets the user unit.
        let byDefault = try await BrokerHarness(defaultSocket: true).authctl(["ping"])
        #expect(byDefault.status == 69 && byDefault.stderr.contains("systemctl --user start authbrokerd.socket"), "\(byDefault)")
    }

    @Test func anIssuerTheDaemonRefusesIsAUsageError() async throws {
        let (harness, _) = try await BrokerHarness.withDaemon()
        let add = try await harness.authctl(["account", "add", "work", "--issuer", "http://example.com", "--client-id", "c"])
        #expect(add.status == 64, "\(add)")
        #expect(add.stderr.contains("https"), "\(add)")
        #expect(await harness.stopDaemon() == 0)
    }
}
