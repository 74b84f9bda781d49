import BrokerHTTP
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// Echoes the peer's credentials and the request path.
private let echoHandler = HTTPClosureHandler { request, connection in
    let credentials = connection.credentials.map { "pid=\($0.pid) uid=\($0.uid) gid=\($0.gid)" } ?? "none"
    return HTTPResponse(status: 200, body: Array("\(request.method) \(request.target) \(credentials)".utf8))
}

private func withUnixServer(
    configuration: HTTPServerConfiguration = HTTPServerConfiguration(), handler: any HTTPHandler = echoHandler,
    _ body: (HTTPServer, String, TemporaryDirectory) async throws -> Void
) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.appending("run/authbroker/api.sock")
    let server = HTTPServer.start(listener: try .unix(path: path), configuration: configuration, handler: handler)
    do {
        try await body(server, path, directory)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

private func mode(_ path: String) -> mode_t? {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
}

@Test func unixSocketIsPrivateAndReportsPeerCredentials() async throws {
    try await withUnixServer { _, path, directory in
        #expect(mode(path) == 0o600)
        #expect(mode(directory.appending("run/authbroker")) == 0o700)
        #expect(mode(directory.appending("run")) == 0o700)
        let response = try await onThread { try TestClient(unixPath: path).get("/v1/whoami") }
        #expect(response?.status == 200)
        #expect(response?.text == "GET /v1/whoami pid=\(getpid()) uid=\(getuid()) gid=\(getgid())")
    }
}

@Test func unixSocketServesConcurrentKeepAliveClients() async throws {
    try await withUnixServer { server, path, _ in
        try await withThrowingTaskGroup(of: Int.self) { group in
            for client in 0..<8 {
                group.addTask {
                    try await onThread {
                        let connection = try TestClient(unixPath: path)
                        var ok = 0
                        for index in 0..<25 {
                            let response = try connection.get("/c\(client)/\(index)")
                            if response?.text.hasPrefix("GET /c\(client)/\(index) pid=") == true { ok += 1 }
                        }
                        return ok
                    }
                }
            }
            var total = 0
            for try await ok in group { total += ok }
            #expect(total == 200)
        }
        #expect(server.connectionCount <= 8)
    }
}

@Test func slowlorisIsCutOffByTheRequestDeadline() async throws {
    var configuration = HTTPServerConfiguration()
    configuration.readTimeout = .seconds(5)
    configuration.requestDeadline = .milliseconds(400)
    try await withUnixServer(configuration: configuration) { _, path, _ in
        let (sent, response) = try await onThread {
            let client = try TestClient(unixPath: path)
            let request = Array("GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: \(String(repeating: "a", count: 60))\r\n\r\n".utf8)
            var sent = 0
            // One byte every 50 ms: no single read times out; the whole request would take > 4 s.
            for byte in request {
                guard client.send([byte]) else { break }
                sent += 1
                usleep(50_000)
                var probe = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
                if poll(&probe, 1, 0) > 0 { break }
            }
            return (sent, try client.readResponse())
        }
        #expect(response?.status == 408)
        #expect(sent < 80)
    }
}

@Test func idleKeepAliveConnectionsTimeOut() async throws {
    var configuration = HTTPServerConfiguration()
    configuration.idleTimeout = .milliseconds(200)
    try await withUnixServer(configuration: configuration) { _, path, _ in
        let closed = try await onThread {
            let client = try TestClient(unixPath: path)
            _ = try client.get("/")
            return client.isClosedByServer()
        }
        #expect(closed)
    }
}

@Test func staleSocketFileIsReplaced() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.appending("stale.sock")
    // A socket file nobody listens on: what a crashed daemon leaves behind.
    let (fd, bound) = bindUnixSocket(at: path)
    close(fd)
    #expect(bound == 0)
    #expect(mode(path) != nil)
    let server = HTTPServer.start(listener: try .unix(path: path), handler: echoHandler)
    let response = try await onThread { try TestClient(unixPath: path).get("/") }
    #expect(response?.status == 200)
    await server.stop()
}

@Test func liveServerOrRegularFileIsNotReplaced() async throws {
    try await withUnixServer { _, path, directory in
        #expect(throws: HTTPServerError.alreadyRunning(path)) { try HTTPListener.unix(path: path) }
        let response = try await onThread { try TestClient(unixPath: path).get("/still-here") }
        #expect(response?.status == 200)

        let file = directory.appending("regular")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("keep me".utf8)))
        #expect(throws: HTTPServerError.notASocket(file)) { try HTTPListener.unix(path: file) }
        #expect(FileManager.default.contents(atPath: file) == Data("keep me".utf8))
    }
}

@Test func socketPathTooLongIsAnError() {
    let path = "/tmp/" + String(repeating: "x", count: 120)
    #expect(throws: HTTPServerError.socketPathTooLong(path)) { try HTTPListener.unix(path: path) }
}

@Test func malformedRequestsGetTheir4xxAndTheServerSurvives() async throws {
    try await withUnixServer { _, path, _ in
        let cases: [(String, Int)] = [
            ("\u{0}\u{1}\u{2} garbage\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400),
            ("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\n\r\n", 414),
            ("GET / HTTP/1.1\r\nX: \(String(repeating: "b", count: 17000))\r\n\r\n", 431),
            ("POST / HTTP/1.1\r\nContent-Length: 70000\r\n\r\n", 413),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            ("GET / HTTP/3.0\r\n\r\n", 505),
        ]
        for (request, status) in cases {
            let response = try await onThread { () -> (Int?, String?) in
                let client = try TestClient(unixPath: path)
                client.send(request)
                let response = try client.readResponse()
                return (response?.status, response?.headers["connection"])
            }
            #expect(response.0 == status, "\(request.prefix(40))")
            #expect(response.1 == "close")
        }
        let after = try await onThread { try TestClient(unixPath: path).get("/ok") }
        #expect(after?.status == 200)
    }
}

private actor Counter {
    private var value = 0
    func next() -> Int {
        value += 1
        return value
    }
}

@Test func asyncHandlersCanCallActors() async throws {
    let counter = Counter()
    let handler = HTTPClosureHandler { _, _ in
        let value = await counter.next()
        try? await Task.sleep(for: .milliseconds(1))
        return HTTPResponse(status: 200, body: Array(String(value).utf8))
    }
    try await withUnixServer(handler: handler) { _, path, _ in
        let values = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try await onThread {
                        let client = try TestClient(unixPath: path)
                        return try (0..<10).map { _ in Int(try client.get("/count")?.text ?? "") ?? -1 }
                    }
                }
            }
            var all: [Int] = []
            for try await values in group { all += values }
            return all
        }
        #expect(values.sorted() == Array(1...40))
    }
}
