import Foundation
import Testing

/// authbrokerd in the foreground on a terminal stamps each log line with the local time; with
/// stderr in a file (as under a supervisor, or journald, which stamps lines itself) it does not.
@Suite struct DaemonTerminalLogTests {
    /// `YYYY-MM-DD HH:MM:SS LEVEL: ` at the start of `line`.
    static func isStamped(_ line: Substring) -> Bool {
        let bytes = Array(line.utf8)
        guard bytes.count > 20 else { return false }
        let digits = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
        let separators: [Int: UInt8] = [4: 45, 7: 45, 10: 32, 13: 58, 16: 58, 19: 32]
        return digits.allSatisfy { (48...57).contains(bytes[$0]) } && separators.allSatisfy { bytes[$0.key] == $0.value }
            && line.dropFirst(20).contains(": ")
    }

    @Test(.timeLimit(.minutes(2)))
    func foregroundLogsOnATerminalCarryTimestamps() async throws {
        let harness = try BrokerHarness()
        let daemon = try BrokerHarness.binary("authbrokerd")
        let authctl = try BrokerHarness.binary("authctl")
        // On a pseudo-terminal (util-linux script): start, wait until it answers, stop it.
        let line =
            "'\(daemon)' --socket '\(harness.socket)' & pid=$!; "
            + "until '\(authctl)' --socket '\(harness.socket)' ping > /dev/null 2>&1; do sleep 0.1; done; "
            + "kill $pid; wait $pid"
        var environment = harness.environment
        environment["SHELL"] = "/bin/sh"
        let output = harness.root + "/tty.out"
        let terminal = try SpawnedProcess(
            ["script", "-qec", line, "/dev/null"], environment: environment, stdoutPath: output, stderrPath: output)
        #expect(await terminal.waitForExit(timeout: 60) == 0, "\(terminal.stdout)")
        let lines = terminal.stdout.split(whereSeparator: \.isNewline).filter { !$0.isEmpty }
        #expect(!lines.isEmpty && lines.allSatisfy(Self.isStamped), "\(terminal.stdout)")

        // The same daemon with stderr in a file: `level: message`, no time.
        try await harness.startDaemon()
        #expect(await harness.stopDaemon() == 0)
        let logged = harness.daemonLog.split(separator: "\n").filter { !$0.isEmpty }
        #expect(!logged.isEmpty && !logged.contains(where: Self.isStamped), "\(harness.daemonLog)")
        #expect(
            logged.first.map { $0.hasPrefix("info: ") || $0.hasPrefix("notice: ") || $0.hasPrefix("warning: ") } == true,
            "\(harness.daemonLog)")
    }
}
