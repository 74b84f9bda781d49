import Foundation
import TestSupport
import Testing

/// A `Subprocess` (TestSupport: posix_spawn, own process group, descriptors ≥ 3 closed, killed in
/// `deinit`) with its stdout and stderr in files, as the end-to-end tests use it: the exit status
/// bounded by a timeout that fails the test, and the output read back as text.
final class SpawnedProcess: Sendable {
    let process: Subprocess
    let stdoutPath: String
    let stderrPath: String

    init(
        _ command: [String], environment: [String: String], stdoutPath: String, stderrPath: String,
        keepStdinOpen: Bool = false
    ) throws {
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath
        // A daemon's log path may be both streams: appended, so neither truncates the other.
        process = try Subprocess(
            command, environment: environment, stdin: keepStdinOpen ? .pipe : .null, stdout: .append(stdoutPath),
            stderr: .append(stderrPath))
    }

    var pid: pid_t { process.pid }
    var stdout: String { Subprocess.readText(stdoutPath) }
    var stderr: String { Subprocess.readText(stderrPath) }
    var isRunning: Bool { process.isRunning }

    func signal(_ number: Int32) { process.signal(number) }
    func closeStdin() { process.closeStdin() }

    /// The exit status (128 + N after signal N), waiting at most `timeout` seconds; a child still
    /// running then is killed and the test fails.
    @discardableResult
    func waitForExit(timeout: Double = 30) async -> Int32 {
        if let status = await process.wait(timeout: .seconds(timeout)) { return status }
        Issue.record("\(process.command) did not exit within \(timeout) s; killed. stderr: \(stderr.suffix(2000))")
        return await process.terminate(grace: .zero)
    }

    /// `signal` (SIGTERM: gracefully), then the exit status.
    @discardableResult
    func stop(signal number: Int32 = SIGTERM, timeout: Double = 30) async -> Int32 {
        process.closeStdin()
        process.signal(number)
        return await waitForExit(timeout: timeout)
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` seconds pass, and once more after
    /// the deadline: on a starved machine one sleep can overshoot it, and a condition that came
    /// true meanwhile must not be reported as a timeout.
    static func eventually(timeout: Double = 20, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        } while deadline.timeIntervalSinceNow > 0
        return try await condition()
    }
}
