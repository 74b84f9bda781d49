import BrokerCore
import BrokerHTTP
import Foundation
import MockProvider
import TestSupport
import Testing

/// The `mock-oidc-provider` executable, as integration tests and benchmarks use it.
@Suite struct MockProviderExecutableTests {
    @Test func spawnDiscoverAndDriveAKnob() async throws {
        let directory = try TemporaryDirectory(prefix: "mock-provider-exe")
        defer { directory.remove() }
        let output = directory.appending("out")
        let process = try Subprocess(
            [
                try ProductBinary.path("mock-oidc-provider"), "--config",
                #"{"clientID":"cli-from-flag","advertiseIssParameter":false}"#,
            ],
            stdin: .pipe, stdout: .file(output))
        defer { process.kill() }
        let line = try #require(await process.firstLine(in: output, startingWith: "listening "), "no listening line")
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
        process.closeStdin()
        #expect(await process.wait(timeout: .seconds(30)) == 0)
    }
}
