import Foundation
import TestSupport
import Testing

/// The official MCP Python SDK for the tests: the venv `.ci/install-deps` makes at
/// `.build/mcp-venv` (or `AUTHBROKER_MCP_PYTHON`), the SDK server and the SDK host as processes.
enum MCPSDK {
    /// The SDK host's arguments for a stdio server that is `authctl mcp sdk` on `harness`'s daemon.
    static func bridgedHost(_ harness: BrokerHarness) throws -> [String] {
        ["stdio", try BrokerHarness.binary("authctl"), "--socket", harness.socket, "mcp", "sdk"]
    }

    static var python: String {
        ProcessInfo.processInfo.environment["AUTHBROKER_MCP_PYTHON"] ?? ChildProcess.repositoryRoot
            + "/.build/mcp-venv/bin/python"
    }

    static var fixtures: String { ChildProcess.repositoryRoot + "/Tests/IntegrationTests/Fixtures/mcp/" }

    /// Run when the venv is there, and always in CI (`CI` set): there a missing SDK fails the tests.
    static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: python) || ProcessInfo.processInfo.environment["CI"] != nil
    }

    static let skipReason: Comment = "the MCP Python SDK is not installed: run ./.ci/install-deps (it makes .build/mcp-venv)"

    /// `sdk_server.py`: an SDK `MCPServer` verifying tokens at the mock's introspection endpoint.
    final class Server: Sendable {
        let process: SpawnedProcess
        let url: String

        init(issuer: String, directory: String, scopes: [String] = ["mcp:tools"]) async throws {
            let name = directory + "/sdk-server-\(UInt32.random(in: 0...UInt32.max))"
            process = try SpawnedProcess(
                [MCPSDK.python, MCPSDK.fixtures + "sdk_server.py", "--issuer", issuer] + scopes.flatMap { ["--scope", $0] },
                environment: ["PATH": "/usr/local/bin:/usr/bin:/bin"], stdoutPath: name + ".out", stderrPath: name + ".err",
                keepStdinOpen: true)
            var url: String?
            _ = await SpawnedProcess.eventually(timeout: 60) { [process] in
                url = process.stdout.split(separator: "\n").first { $0.hasPrefix("listening ") }.map { String($0.dropFirst(10)) }
                return url != nil || !process.isRunning
            }
            guard let url else { throw HarnessError.unexpected("the SDK server did not start: \(process.stderr)") }
            self.url = url
        }

        func stop() { process.closeStdin() }
    }

    /// `sdk_client.py`: the SDK's client session as the host, one JSON line per step.
    final class Host: @unchecked Sendable {
        // @unchecked: `consumed` is used by the one test task that drives the host.
        let process: SpawnedProcess
        private var consumed = 0

        init(_ arguments: [String], harness: BrokerHarness) throws {
            let name = harness.root + "/sdk-host-\(UInt32.random(in: 0...UInt32.max))"
            process = try SpawnedProcess(
                [MCPSDK.python, MCPSDK.fixtures + "sdk_client.py"] + arguments, environment: harness.environment,
                stdoutPath: name + ".out", stderrPath: name + ".err", keepStdinOpen: true)
        }

        var stderr: String { process.stderr }

        /// The next JSON line the host printed (waiting up to `timeout` seconds).
        func next(timeout: Double = 60) async throws -> [String: Any] {
            var line: Substring?
            _ = await SpawnedProcess.eventually(timeout: timeout) { [self] in
                let lines = process.stdout.split(separator: "\n")
                line = lines.count > consumed ? lines[consumed] : nil
                return line != nil || !process.isRunning
            }
            guard let line, let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw HarnessError.unexpected("the SDK host printed nothing more: \(process.stderr.suffix(3000))")
            }
            consumed += 1
            return object
        }

        /// Sends one step (`tools`, `call NAME JSON`…) and returns its line.
        func step(_ text: String) async throws -> [String: Any] {
            try process.process.writeToStdin(text + "\n")
            return try await next()
        }

        func closeInput() { process.closeStdin() }
        func stop() { process.closeStdin() }
    }
}
