import BrokerCore
import BrokerHTTP
import Foundation
import MockProvider
import Testing
import TestSupport

/// The `mock-oidc-provider` executable, as integration tests and benchmarks use it.
@Suite struct MockProviderExecutableTests {

    /// Reads the first stdout line on a plain thread, giving up after 10 s.
    static func firstLine(of pipe: Pipe) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let handle = pipe.fileHandleForReading
                var bytes: [UInt8] = []
                var entry = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
                while bytes.last != UInt8(ascii: "\n"), poll(&entry, 1, 10_000) > 0 {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    bytes += chunk
                }
                continuation.resume(returning: bytes.last == UInt8(ascii: "\n") ? String(decoding: bytes.dropLast(), as: UTF8.self) : nil)
            }
        }
    }

    @Test func spawnDiscoverAndDriveAKnob() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ProductBinary.path("mock-oidc-provider"))
        process.arguments = ["--config", #"{"clientID":"cli-from-flag","advertiseIssParameter":false}"#]
        let (input, output) = (Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
        }
        let line = try #require(await Self.firstLine(of: output))
        #expect(line.hasPrefix("listening http://127.0.0.1:"))
        let issuer = String(line.dropFirst("listening ".count))

        let client = OIDCClient(transport: try MockProviderHarness.httpClient())
        let metadata = try await client.discover(issuer: issuer).cached.metadata
        #expect(metadata.tokenEndpoint == issuer + "/token" && metadata.authorizationResponseIssParameterSupported == false)

        let http = try MockProviderHarness.httpClient(pooled: false)
        let patch = HTTPClientRequest(
            method: "POST", url: issuer + "/_mock/config", headers: HTTPHeaders([("Content-Type", "application/json")]),
            body: Array(#"{"discoveryIssuer":"https://elsewhere.example"}"#.utf8))
        let config = try await http.send(patch)
        #expect(config.status == 200)
        let knobs = try JSONDecoder().decode(MockProviderConfiguration.self, from: Data(config.body))
        #expect(knobs.clientID == "cli-from-flag" && knobs.discoveryIssuer == "https://elsewhere.example")
        await #expect(throws: OIDCError.issuerMismatch(expected: issuer, found: "https://elsewhere.example")) {
            try await client.discover(issuer: issuer)
        }
        let stats = try JSONDecoder().decode(
            MockProviderStats.self, from: Data(try await http.send(HTTPClientRequest(url: issuer + "/_mock/stats")).body))
        #expect(stats.discoveryRequests == 2)

        // End of stdin ends the process.
        try input.fileHandleForWriting.close()
        let exited = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                for _ in 0..<100 where process.isRunning { usleep(50_000) }
                continuation.resume(returning: !process.isRunning)
            }
        }
        #expect(exited)
    }
}
