import BrokerHTTP
import Synchronization
import TestSupport
import Testing

/// Plain-http behaviour (loopback only), framing, caps, redirects, pooling and failures.
@Suite struct HTTPClientTests {
    private func client(
        totalTimeout: Duration = .seconds(10), maxResponseBytes: Int = 1024 * 1024
    ) throws -> HTTPClient {
        try HTTPClient(
            configuration: HTTPClientConfiguration(
                connectTimeout: .seconds(5), totalTimeout: totalTimeout, maxResponseBytes: maxResponseBytes,
                // Long: on a loaded machine seconds can pass between two requests of a keep-alive test.
                idleTimeout: .seconds(60)))
    }

    private func failure(_ request: HTTPClientRequest, client: HTTPClient) async -> HTTPClientError? {
        do {
            _ = try await client.send(request)
            return nil
        } catch {
            return error
        }
    }

    @Test func plainHTTPToLoopbackWorks() async throws {
        let server = try TestHTTPServer.answering("plain")
        defer { server.stop() }
        let response = try await client().send(
            HTTPClientRequest(
                method: "POST", url: "http://127.0.0.1:\(server.port)/token", body: Array("a=b".utf8)))
        #expect(response.status == 200)
        #expect(response.body == Array("plain".utf8))
        #expect(server.requests.first?.method == "POST")
        #expect(server.requests.first?.body == Array("a=b".utf8))
    }

    @Test func plainHTTPToOtherHostsIsRefusedBeforeAnyNetwork() async throws {
        let client = try client()
        for url in ["http://idp.example/token", "http://10.0.0.1/", "http://[2001:db8::1]/"] {
            guard case .invalidURL(let why) = await failure(HTTPClientRequest(url: url), client: client) else {
                Issue.record("\(url) was not refused")
                continue
            }
            #expect(why.contains("https"))
        }
    }

    @Test func keepAliveReusesTheConnection() async throws {
        let server = try TestHTTPServer.answering("ok")
        defer { server.stop() }
        let client = try client()
        for _ in 0..<4 { _ = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/")) }
        #expect(server.requests.count == 4)
        #expect(server.connectionCount == 1)
    }

    @Test func responsesOverTheCapAreTooLarge() async throws {
        let server = try TestHTTPServer.answering(String(repeating: "x", count: 5000))
        defer { server.stop() }
        let error = await failure(
            HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/"), client: try client(maxResponseBytes: 4096))
        #expect(error == .tooLarge(limit: 4096))
        #expect(error?.isTransient == false)
    }

    @Test func chunkedResponsesAreDecoded() async throws {
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
        let server = try TestHTTPServer { _ in .raw(Array(chunked.utf8)) }
        defer { server.stop() }
        let client = try client()
        let response = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/"))
        #expect(response.body == Array("hello world".utf8))
        _ = try await client.send(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/"))
        #expect(server.connectionCount == 1)
    }

    @Test func redirectsAreReturnedNotFollowed() async throws {
        let server = try TestHTTPServer { _ in
            .respond(HTTPResponse(status: 302, headers: HTTPHeaders([("Location", "https://elsewhere.example/")])))
        }
        defer { server.stop() }
        let response = try await client().send(HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/start"))
        #expect(response.status == 302)
        #expect(response.headers["Location"] == "https://elsewhere.example/")
        #expect(server.requests.count == 1)
    }

    @Test func refusedConnectionIsAConnectFailure() async throws {
        let port = try LoopbackListener.closedPort()
        let error = await failure(HTTPClientRequest(url: "http://127.0.0.1:\(port)/"), client: try client())
        guard case .connectFailure(let host, let failedPort, _) = error else {
            Issue.record("expected connectFailure, got \(String(describing: error))")
            return
        }
        #expect(host == "127.0.0.1" && failedPort == port)
        #expect(error?.isTransient == true)
    }

    @Test func invalidNamesFailResolutionWithoutNetwork() async throws {
        let error = await failure(HTTPClientRequest(url: "https://idp.invalid/token"), client: try client())
        guard case .dnsFailure(let host, _) = error else {
            Issue.record("expected dnsFailure, got \(String(describing: error))")
            return
        }
        #expect(host == "idp.invalid")
    }

    @Test func silentServerTimesOutWithinTheTotalTimeout() async throws {
        let server = try TestHTTPServer { _ in .silence }
        defer { server.stop() }
        let error = await failure(
            HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/"), client: try client(totalTimeout: .milliseconds(500)))
        guard case .timeout(let what) = error else {
            Issue.record("expected timeout, got \(String(describing: error))")
            return
        }
        #expect(what.contains("total timeout"))
    }

    /// A POST (say, an authorization code exchange) must never be sent twice, even when the
    /// pooled connection it went out on was dropped by the server; a GET is retried once.
    @Test func onlyIdempotentRequestsAreRetriedOnADroppedConnection() async throws {
        let seen = Mutex(0)
        let server = try TestHTTPServer { request in
            let count = seen.withLock { count in
                count += 1
                return count
            }
            // Requests 2 (the POST) and 4 (a GET) arrive on a reused connection and are dropped.
            return count == 2 || count == 4 ? .hangUp : .respond(HTTPResponse(status: 200, body: Array(request.method.utf8)))
        }
        defer { server.stop() }
        let client = try client()
        let url = "http://127.0.0.1:\(server.port)/token"
        _ = try await client.send(HTTPClientRequest(url: url))
        let postError = await failure(HTTPClientRequest(method: "POST", url: url, body: Array("code=abc".utf8)), client: client)
        #expect(postError?.isTransient == true)
        #expect(server.requests.filter { $0.method == "POST" }.count == 1)
        _ = try await client.send(HTTPClientRequest(url: url))
        let retried = try await client.send(HTTPClientRequest(url: url))
        #expect(retried.body == Array("GET".utf8))
        #expect(server.requests.map(\.method) == ["GET", "POST", "GET", "GET", "GET"])
    }

    @Test func errorDescriptionsAreOneLine() {
        let errors: [HTTPClientError] = [
            .invalidURL("x"), .dnsFailure(host: "h", reason: "r"), .connectFailure(host: "h", port: 1, reason: "r"),
            .timeout("t"), .protocolError("p"), .tooLarge(limit: 1), .tls(.certificateExpired(host: "h")),
            .tls(.hostnameMismatch(host: "h")), .tls(.untrustedIssuer(host: "h", detail: "d")),
            .tls(.protocolVersion(host: "h")), .tls(.other(host: "h", detail: "d")),
        ]
        for error in errors {
            #expect(!error.description.contains("\n"))
            #expect(!error.description.isEmpty)
        }
    }
}
