import Foundation
import TestSupport
import Testing

/// A test server process (Fixtures/fake_servers.py) that prints `ready ADDRESS` and exits when its
/// stdin closes, so it never outlives the test even if the test crashes.
final class BackgroundServer {
    let process: Subprocess
    let address: String

    init(_ arguments: [String], directory: String, timeout: Duration = .seconds(20)) async throws {
        let script = ChildProcess.repositoryRoot + "/Tests/IntegrationTests/Fixtures/fake_servers.py"
        let name = directory + "/server-\(UInt32.random(in: 0...UInt32.max))"
        process = try Subprocess(
            ["/usr/bin/env", "python3", script] + arguments, stdin: .pipe, stdout: .file(name + ".out"),
            stderr: .file(name + ".err"))
        guard let ready = await process.firstLine(in: name + ".out", startingWith: "ready ", timeout: timeout) else {
            process.kill()
            throw BackgroundServerError(arguments: arguments, stderr: Subprocess.readText(name + ".err"))
        }
        address = String(ready.dropFirst(6))
    }

    /// Kills the server and everything it started (git-http-backend) now; never waits, so it is
    /// safe in `defer`. The server holds no state a test reads after this.
    func stop() { process.kill() }
}

struct BackgroundServerError: Error, CustomStringConvertible {
    let arguments: [String]
    let stderr: String
    var description: String { "test server \(arguments) did not become ready; stderr: \(stderr.suffix(2000))" }
}
