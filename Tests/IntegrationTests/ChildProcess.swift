import Foundation
import Testing
import TestSupport

/// Runs the real binaries SwiftPM built next to this test bundle, bounded in time.
enum ChildProcess {
    static func binary(_ name: String) throws -> String { try ProductBinary.path(name) }

    /// The repository root, found from this source file's path (docs live there).
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `command` with `stdin` as its input, waiting at most `timeout` seconds (then kills it
    /// and records a failure). Output goes through files, so a chatty child cannot block on a pipe.
    /// Spawned with posix_spawn (`SpawnedProcess`): Foundation's `Process` hangs the suite on Linux.
    static func run(
        _ command: [String], stdin: String = "", environment: [String: String], directory: String,
        timeout: Double = 30
    ) async throws -> Result {
        let id = UInt32.random(in: 0...UInt32.max)
        let inPath = directory + "/run-\(id).in", outPath = directory + "/run-\(id).out"
        let errPath = directory + "/run-\(id).err"
        FileManager.default.createFile(atPath: inPath, contents: Data(stdin.utf8))
        // posix_spawn has no portable chdir (glibc's _np variant is not imported): a shell changes
        // directory and execs the command, searching PATH as Process did.
        let process = try SpawnedProcess(
            ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", directory] + command, environment: environment,
            stdoutPath: outPath, stderrPath: errPath, stdinPath: inPath)
        let status = await process.waitForExit(timeout: timeout)
        return Result(status: status, stdout: process.stdout, stderr: process.stderr)
    }
}
