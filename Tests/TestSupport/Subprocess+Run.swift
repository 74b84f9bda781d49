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
        let scratch = try TemporaryDirectory(prefix: "subprocess")
        defer { scratch.remove() }
        let (inPath, outPath, errPath) = (scratch.appending("in"), scratch.appending("out"), scratch.appending("err"))
        try Data(stdin.utf8).write(to: URL(fileURLWithPath: inPath))
        let child = try Subprocess(
            command, environment: environment, directory: directory, stdin: .file(inPath), stdout: .file(outPath),
            stderr: .file(errPath))
        let status = await child.wait(timeout: timeout)
        if status == nil { await child.terminate(grace: .milliseconds(200)) }
        let result = Result(status: status ?? 128 + SIGKILL, stdout: readText(outPath), stderr: readText(errPath))
        guard status != nil else {
            throw SubprocessError.timedOut(command: command, timeout: timeout, stdout: result.stdout, stderr: result.stderr)
        }
        return result
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
