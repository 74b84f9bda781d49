import BrokerHTTP
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

private let peerHandler = HTTPClosureHandler { request, connection in
    var text = "none"
    if case .tcp(let address, _) = connection.peer { text = address }
    return HTTPResponse(status: 200, body: Array("\(request.target) from \(text)".utf8))
}

@Test(arguments: ["127.0.0.1", "::1"])
func tcpListenerReportsItsEphemeralPortAndPeer(host: String) async throws {
    let listener = try HTTPListener.tcp(host: host, port: 0)
    let port = try #require(listener.port)
    #expect(port > 0)
    let server = HTTPServer.start(listener: listener, handler: peerHandler)
    let response = try await onThread { try TestClient(host: host, port: port).get("/callback?code=x") }
    #expect(response?.text == "/callback?code=x from \(host)")
    await server.stop()
    #expect(throws: (any Error).self) { try TestClient(host: host, port: port) }
}

@Test func tcpListenerRefusesNonLoopbackAddresses() {
    #expect(throws: HTTPServerError.invalidAddress("0.0.0.0")) { try HTTPListener.tcp(host: "0.0.0.0") }
    #expect(throws: HTTPServerError.invalidAddress("localhost")) { try HTTPListener.tcp(host: "localhost") }
}

@Test func tcpServerAnswersGarbageWith400() async throws {
    let listener = try HTTPListener.tcp()
    let port = try #require(listener.port)
    let server = HTTPServer.start(listener: listener, handler: peerHandler)
    let statuses = try await onThread { () -> [Int?] in
        var statuses: [Int?] = []
        for garbage in [
            "\u{16}\u{3}\u{1}\u{0}\u{a5}\u{1}\u{0}\u{0}\u{a1}\u{3}\u{3}\r\n\r\n", "hello\r\n\r\n", "GET / HTTP/1.1\r\nA\r\n\r\n",
        ] {
            let client = try TestClient(host: "127.0.0.1", port: port)
            client.send(garbage)
            statuses.append(try client.readResponse()?.status)
        }
        return statuses
    }
    #expect(statuses == [400, 400, 400])
    let fine = try await onThread { try TestClient(host: "127.0.0.1", port: port).get("/") }
    #expect(fine?.status == 200)
    await server.stop()
}

@Test func headRequestsGetNoBodyAndHTTP10Closes() async throws {
    let listener = try HTTPListener.tcp()
    let port = try #require(listener.port)
    let server = HTTPServer.start(listener: listener, handler: peerHandler)
    let (head, http10, closed) = try await onThread { () -> (HTTPResponse?, HTTPResponse?, Bool) in
        let client = try TestClient(host: "127.0.0.1", port: port)
        client.send("HEAD /h HTTP/1.1\r\n\r\nGET /after HTTP/1.0\r\n\r\n")
        let head = try client.readResponse(method: "HEAD")
        let http10 = try client.readResponse()
        return (head, http10, client.isClosedByServer())
    }
    #expect(head?.status == 200 && head?.body == [] && head?.headers["content-length"] == "17")
    #expect(http10?.text == "/after from 127.0.0.1" && http10?.headers["connection"] == "close")
    #expect(closed)
    await server.stop()
}

@Test func socketActivationUsesTheInheritedDescriptor() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.appending("activated.sock")
    // What systemd would do: bind and listen, then pass the descriptor.
    let (fd, bound) = bindUnixSocket(at: path)
    try #require(bound == 0 && listen(fd, 8) == 0)

    let environment = ["LISTEN_PID": String(getpid()), "LISTEN_FDS": "1"]
    #expect(try HTTPListener.inherited(environment: [:], firstDescriptor: fd) == nil)
    #expect(try HTTPListener.inherited(environment: ["LISTEN_PID": "1", "LISTEN_FDS": "1"], firstDescriptor: fd) == nil)
    #expect(throws: HTTPServerError.self) {
        try HTTPListener.inherited(environment: ["LISTEN_PID": String(getpid()), "LISTEN_FDS": "0"], firstDescriptor: fd)
    }
    var pipeFDs: [Int32] = [0, 0]
    try #require(pipe(&pipeFDs) == 0)
    #expect(throws: HTTPServerError.self) { try HTTPListener.inherited(environment: environment, firstDescriptor: pipeFDs[0]) }
    close(pipeFDs[0])
    close(pipeFDs[1])

    let listener = try #require(try HTTPListener.inherited(environment: environment, firstDescriptor: fd))
    #expect(listener.address == .inherited(fd: fd))
    let server = HTTPServer.start(
        listener: listener,
        handler: HTTPClosureHandler { _, connection in
            HTTPResponse(status: 200, body: Array("uid=\(connection.credentials?.uid ?? 0)".utf8))
        })
    let response = try await onThread { try TestClient(unixPath: path).get("/") }
    #expect(response?.text == "uid=\(getuid())")
    await server.stop()
}

/// Lets a test hold a handler in flight until it says so (also ConnectionAdmissionTests).
final class Gate: Sendable {
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)

    /// Called by a handler: signals `entered`, returns once the test signals `release`.
    func hold() async {
        entered.signal()
        await withCheckedContinuation { continuation in
            Thread {
                // Released by the test; the bound is only a safety net, long enough for a loaded machine.
                _ = self.release.wait(timeout: .now() + 60)
                continuation.resume()
            }.start()
        }
    }
}

@Test func gracefulStopFinishesInFlightRequestsAndClosesIdleOnes() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.appending("drain.sock")
    let gate = Gate()
    let handler = HTTPClosureHandler { request, _ in
        if request.target == "/slow" { await gate.hold() }
        return HTTPResponse(status: 200, body: Array(request.target.utf8))
    }
    let server = HTTPServer.start(listener: try .unix(path: path), handler: handler)
    let idle = try await onThread { () -> TestClient in
        let client = try TestClient(unixPath: path)
        _ = try client.get("/warm")
        return client
    }
    let slow = try await onThread { () -> TestClient in
        let client = try TestClient(unixPath: path)
        client.send("GET /slow HTTP/1.1\r\n\r\n")
        return client
    }
    #expect(try await onThread { gate.entered.wait(timeout: .now() + 5) } == .success)
    async let stopped: Void = server.stop()
    // The idle connection is closed at once while /slow is still in flight.
    #expect(try await onThread { idle.isClosedByServer() })
    gate.release.signal()
    let response = try await onThread { try slow.readResponse() }
    await stopped
    #expect(response?.text == "/slow")
    #expect(response?.headers["connection"] == "close")
    #expect(throws: (any Error).self) { try TestClient(unixPath: path) }
}
