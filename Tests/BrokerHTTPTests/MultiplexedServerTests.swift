import BrokerHTTP
import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon's restricted sockets run on one multiplexed server (docs/security.md, "Restricted
/// sockets"): one accepting thread for all listeners, each with its own handler; removing one
/// ends its connections — a kept-alive connection gets no further answer through it.
@Suite struct MultiplexedServerTests {
    static func named(_ name: String) -> HTTPClosureHandler {
        HTTPClosureHandler { request, _ in HTTPResponse(status: 200, body: Array("\(name) \(request.target)".utf8)) }
    }

    @Test func eachListenerAnswersWithItsHandlerAndARemovedOneServesNoMore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try HTTPServer.multiplexed()
        let paths = (0..<3).map { directory.appending("run/l\($0).sock") }
        var served: [ServedListener] = []
        for (index, path) in paths.enumerated() {
            served.append(try #require(server.add(try .unix(path: path), handler: Self.named("l\(index)"))))
        }
        #expect(server.listenerCount == 3)
        for (index, path) in paths.enumerated() {
            let answer = try await onThread { try TestClient(unixPath: path).get("/x")?.text }
            #expect(answer == "l\(index) /x")
        }
        // A kept-alive connection on l1, then l1 goes.
        let kept = try TestClient(unixPath: paths[1])
        #expect(try await onThread { try kept.get("/first")?.text } == "l1 /first")
        await server.remove(served[1])
        #expect(server.listenerCount == 2)
        #expect(try await onThread { kept.isClosedByServer() }, "the removed listener's connection stayed open")
        #expect((try? TestClient(unixPath: paths[1])) == nil, "the removed listener still accepts connections")
        #expect(try await onThread { try TestClient(unixPath: paths[2]).get("/still")?.text } == "l2 /still")
        // Half a request on l2 when it goes: the rest arrives too late to be served.
        let half = try TestClient(unixPath: paths[2])
        #expect(half.send("GET /late HTTP/1.1\r\nHost: local"))
        await server.remove(served[2])
        _ = half.send("host\r\n\r\n")
        // Closed (end of stream, or a reset when the half request was still unread): no answer.
        let late = try await onThread { (try? half.readResponse())?.text }
        #expect(late == nil, "a request completed after the removal was answered: \(late ?? "")")
        await server.stop()
        #expect(server.add(try .unix(path: directory.appending("run/late.sock")), handler: Self.named("late")) == nil)
    }
}
