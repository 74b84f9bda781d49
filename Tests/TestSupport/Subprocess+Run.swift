import Foundation

extension Subprocess {
    /// What a finished child left: its exit status (128 + N for signal N) and its output.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `command` to completion with `stdin` as its input and its output captured through
    /// files in a private temporary directory. After `timeout` the child's group is killed and
    /// `SubprocessError.timedOut` is thrown, which fails the calling test with the output so far.
    public static func run(
        _ command: [String], stdin: String = "", environment: [String: String]? = nil, directory: String? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> Result {
        let capture = try Capture(command, stdin: stdin, environment: environment, directory: directory)
        defer { capture.scratch.remove() }
        let status = await capture.child.wait(timeout: timeout)
        if status == nil { await capture.child.terminate(grace: .milliseconds(200)) }
        return try capture.result(status: status, timeout: timeout)
    }

    /// `run` for synchronous callers (one-time fixture set-up such as the openssl CLI): the same,
    /// but it blocks the calling thread while polling, so keep it to commands of milliseconds.
    public static func runBlocking(
        _ command: [String], stdin: String = "", environment: [String: String]? = nil, directory: String? = nil,
        timeout: Duration = .seconds(60)
    ) throws -> Result {
        let capture = try Capture(command, stdin: stdin, environment: environment, directory: directory)
        defer { capture.scratch.remove() }
        let deadline = ContinuousClock.now + timeout
        var status = capture.child.poll()
        while status == nil, ContinuousClock.now < deadline {
            usleep(2_000)
            status = capture.child.poll()
        }
        if status == nil {
            capture.child.kill()
            usleep(10_000)
        }
        return try capture.result(status: status, timeout: timeout)
    }

    /// A child whose stdin, stdout and stderr are files in a scratch directory of its own.
    private struct Capture {
        let scratch: TemporaryDirectory
        let child: Subprocess
        let command: [String]

        init(_ command: [String], stdin: String, environment: [String: String]?, directory: String?) throws {
            scratch = try TemporaryDirectory(prefix: "subprocess")
            do {
                try Data(stdin.utf8).write(to: URL(fileURLWithPath: scratch.appending("in")))
                child = try Subprocess(
                    command, environment: environment, directory: directory, stdin: .file(scratch.appending("in")),
                    stdout: .file(scratch.appending("out")), stderr: .file(scratch.appending("err")))
            } catch {
                scratch.remove()
                throw error
            }
            self.command = command
        }

        /// The result for `status`, or the timeout error (with the output so far) when it is nil.
        func result(status: Int32?, timeout: Duration) throws -> Result {
            let stdout = readText(scratch.appending("out"))
            let stderr = readText(scratch.appending("err"))
            guard let status else {
                throw SubprocessError.timedOut(command: command, timeout: timeout, stdout: stdout, stderr: stderr)
            }
            return Result(status: status, stdout: stdout, stderr: stderr)
        }
    }

    /// The complete lines (newline-terminated) of the file at `path` once `done` accepts them,
    /// polling while this child runs; nil when it exits (or `timeout` passes) before that.
    /// For output files of this child: "ready ADDRESS", "listening URL", progress counters.
    public func lines(
        in path: String, timeout: Duration = .seconds(30), until done: ([Substring]) -> Bool
    ) async -> [Substring]? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let exited = !isRunning
            // Read after the exit check: lines written just before exiting still count.
            let lines = Self.completeLines(Self.readText(path))
            if done(lines) { return lines }
            guard !exited, ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(5))) != nil else {
                return nil
            }
        }
    }

    /// The first complete line of the file at `path` starting with `prefix` (see `lines(in:)`).
    public func firstLine(in path: String, startingWith prefix: String, timeout: Duration = .seconds(30)) async -> String? {
        let lines = await lines(in: path, timeout: timeout) { $0.contains { $0.hasPrefix(prefix) } }
        return lines?.first { $0.hasPrefix(prefix) }.map(String.init)
    }

    /// The text of a file, empty when it does not exist (yet).
    public static func readText(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }

    /// Lines ended by "\n"; a partial last line (still being written) is left out.
    static func completeLines(_ text: String) -> [Substring] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()
        return lines
    }
}
