import TestSupport
import Testing

@testable import BrokerHTTP

/// The client's request threads (`HTTPClient.threads`): requests one after another block on the
/// same parked thread instead of starting (and ending) a thread each — a refresh's token request,
/// and the discovery and JWKS fetches beside it, find one waiting.
@Suite struct HTTPClientThreadTests {
    @Test func requestsOneAfterAnotherRunOnTheParkedThread() async throws {
        let server = try TestHTTPServer.answering("ok")
        defer { server.stop() }
        let client = try HTTPClient(configuration: HTTPClientConfiguration(idleTimeout: .seconds(60)))
        for _ in 0..<4 {
            _ = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/"))
            // The answer is handed over before the thread parks: wait for that (bounded), not a time.
            try await waitUntilParked(client.threads)
        }
        #expect(server.requests.count == 4)
        #expect(client.threads.startedCount == 1)
    }

    private func waitUntilParked(_ threads: ConnectionThreadPool) async throws {
        for _ in 0..<5_000 where threads.parkedCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        try #require(threads.parkedCount == 1)
    }
}
