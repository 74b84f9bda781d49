import BrokerHTTP
import Glibc
import Synchronization
import TestSupport
import Testing

/// `HTTPClientRequest.streamWindow`: an open-ended answer (an MCP server's GET event stream) is
/// read until the window ends and returned with the body so far, not failed as a timeout.
@Suite struct HTTPClientStreamWindowTests {
    /// A server that answers with a chunked event stream, sends `chunks`, then holds the
    /// connection open (until the client leaves or the listener's lifetime ends).
    private static func holdingServer(chunks: [String]) throws -> LoopbackListener {
        let listener = try LoopbackListener(lifetime: .seconds(30))
        listener.acceptLoop { fd in
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = read(fd, &buffer, buffer.count)
            var text = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            for chunk in chunks { text += String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n" }
            guard LoopbackListener.sendAll(fd, Array(text.utf8)) else { return }
            // Hold: the client's read of the rest ends at its window, and then its close ends ours.
            _ = read(fd, &buffer, buffer.count)
        }
        return listener
    }

    private func client() throws -> HTTPClient {
        try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(5), totalTimeout: .seconds(20)))
    }

    @Test func theWindowEndsWithTheBodySoFar() async throws {
        let server = try Self.holdingServer(chunks: ["id: 1\ndata: {\"a\":1}\n\n", "id: 2\ndata: {\"b\""])
        defer { server.stop() }
        let response = try await client().send(
            HTTPClientRequest(
                url: "http://127.0.0.1:\(server.port)/mcp", headers: HTTPHeaders([("Accept", "text/event-stream")]),
                streamWindow: .milliseconds(500)))
        #expect(response.status == 200 && response.headers["Content-Type"] == "text/event-stream")
        // Everything decoded so far, the unfinished event included (the reader drops it).
        #expect(String(decoding: response.body, as: UTF8.self) == "id: 1\ndata: {\"a\":1}\n\nid: 2\ndata: {\"b\"")
    }

    @Test func withoutAWindowTheSameStreamIsATimeout() async throws {
        let server = try Self.holdingServer(chunks: ["data: {}\n\n"])
        defer { server.stop() }
        let client = try HTTPClient(
            configuration: HTTPClientConfiguration(connectTimeout: .seconds(5), totalTimeout: .milliseconds(500)))
        do {
            _ = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/mcp"))
            Issue.record("an unfinished response was returned without a window")
        } catch {
            guard case .timeout = error else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
        }
    }

    @Test func aServerSilentBeforeItsHeadIsStillATimeout() async throws {
        let listener = try LoopbackListener(lifetime: .seconds(30))
        defer { listener.stop() }
        listener.acceptLoop { fd in
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = read(fd, &buffer, buffer.count)
            _ = read(fd, &buffer, buffer.count)
            close(fd)
        }
        let client = try client()
        do {
            _ = try await client.send(
                HTTPClientRequest(url: "http://127.0.0.1:\(listener.port)/mcp", streamWindow: .milliseconds(300)))
            Issue.record("a response without a head was returned")
        } catch {
            guard case .timeout = error else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
        }
    }
}
