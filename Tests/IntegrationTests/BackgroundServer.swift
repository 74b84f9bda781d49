import Foundation
import Testing

/// A test server process (Fixtures/fake_servers.py) that prints `ready ADDRESS` and exits when its
/// stdin closes, so it never outlives the test even if the test crashes.
final class BackgroundServer {
    let process = Process()
    private let stdin = Pipe()
    let address: String

    init(_ arguments: [String], directory: String, timeout: Double = 20) async throws {
        let script = ChildProcess.repositoryRoot + "/Tests/IntegrationTests/Fixtures/fake_servers.py"
        let outPath = directory + "/server-\(UInt32.random(in: 0...UInt32.max)).out"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        process.standardInput = stdin
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = FileHandle.standardError
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        var ready: String?
        while ready == nil, deadline.timeIntervalSinceNow > 0, process.isRunning {
            let text = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ready ") }) {
                ready = String(line.dropFirst(6))
            } else {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        guard let ready else {
            kill(process.processIdentifier, SIGKILL)
            throw BackgroundServerError(arguments: arguments)
        }
        address = ready
    }

    func stop() {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}

struct BackgroundServerError: Error, CustomStringConvertible {
    let arguments: [String]
    var description: String { "test server \(arguments) did not become ready" }
}
