import Foundation
import Testing

/// A test server process (Fixtures/fake_servers.py) that prints `ready ADDRESS` and exits when its
/// stdin closes, so it never outlives the test even if the test crashes.
final class BackgroundServer {
    let process: SpawnedProcess
    let address: String

    init(_ arguments: [String], directory: String, timeout: Double = 20) async throws {
        let script = ChildProcess.repositoryRoot + "/Tests/IntegrationTests/Fixtures/fake_servers.py"
        let name = directory + "/server-\(UInt32.random(in: 0...UInt32.max))"
        let process = try SpawnedProcess(
            ["/usr/bin/env", "python3", script] + arguments, environment: ProcessInfo.processInfo.environment,
            stdoutPath: name + ".out", stderrPath: name + ".err", keepStdinOpen: true)
        self.process = process
        var ready: String?
        _ = await SpawnedProcess.eventually(timeout: timeout) {
            ready = process.stdout.split(separator: "\n").first { $0.hasPrefix("ready ") }.map { String($0.dropFirst(6)) }
            return ready != nil || !process.isRunning
        }
        guard let ready else {
            process.stopNow(signal: SIGKILL)
            throw BackgroundServerError(arguments: arguments, log: process.stderr)
        }
        address = ready
    }

    func stop() { process.stopNow() }
}

struct BackgroundServerError: Error, CustomStringConvertible {
    let arguments: [String]
    let log: String
    var description: String { "test server \(arguments) did not become ready; its stderr:\n\(log)" }
}
