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
    static func run(
        _ command: [String], stdin: String = "", environment: [String: String], directory: String,
        timeout: Double = 30
    ) async throws -> Result {
        let id = UInt32.random(in: 0...UInt32.max)
        let inPath = directory + "/run-\(id).in", outPath = directory + "/run-\(id).out"
        let errPath = directory + "/run-\(id).err"
        FileManager.default.createFile(atPath: inPath, contents: Data(stdin.utf8))
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, deadline.timeIntervalSinceNow > 0 {
            try await Task.sleep(for: .milliseconds(5))
        }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            Issue.record("\(command) did not exit within \(timeout) s; killed")
        }
        let read = { (path: String) in (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return Result(status: status, stdout: read(outPath), stderr: read(errPath))
    }
}
