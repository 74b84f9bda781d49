import Foundation
import Glibc
import Testing

@testable import BrokerHTTP

/// The refused connection's lingering close (docs/security.md, "The socket"): the answer stays
/// readable, what the client still sends is read and dropped, and the closer holds at most its
/// bound — beyond it a connection is closed at once.
@Suite struct LingeringCloserTests {
    /// A connected AF_UNIX stream pair: (server side, client side).
    static func pair() throws -> (Int32, Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        return (fds[0], fds[1])
    }

    /// Reads until end of stream (or an error: -1), bounded by a 20 s receive timeout.
    static func readAll(_ fd: Int32) -> (bytes: [UInt8], end: Int) {
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return (bytes, count) }
            bytes += buffer[0..<count]
        }
    }

    @Test func theAnswerIsReadEvenWithTheRequestUnreadAndTheBoundIsKept() async throws {
        // A long linger so the held count is deterministic; the clients' closes end it.
        let closer = LingeringCloser(maximumConnections: 3, maximumBytes: 4096, lingerTime: .seconds(60))
        var clients: [Int32] = []
        for _ in 0..<5 {
            let (server, client) = try Self.pair()
            // The client's request arrives before the server answers and is never read by it.
            #expect(send(client, "GET / HTTP/1.1\r\n\r\n", 18, 0) == 18)
            #expect(send(server, "HTTP/1.1 403 Forbidden\r\n\r\n", 26, 0) == 26)
            closer.close(server)
            clients.append(client)
        }
        #expect(closer.count == 3)
        // The three lingering ones: the answer, then the end of stream (the write side is shut).
        for client in clients.prefix(3) {
            let (bytes, end) = Self.readAll(client)
            #expect(String(decoding: bytes, as: UTF8.self) == "HTTP/1.1 403 Forbidden\r\n\r\n" && end == 0)
            close(client)
        }
        // Beyond the bound, closed at once with the request unread: the client sees a reset.
        for client in clients.suffix(2) {
            #expect(Self.readAll(client).end == -1)
            close(client)
        }
        // Each lingering one is closed once its client closed.
        let drained = await eventually { closer.count == 0 }
        #expect(drained, "\(closer.count) still lingering after their clients closed")
    }

    @Test func aClientThatKeepsSendingIsCutAfterTheByteBound() async throws {
        let closer = LingeringCloser(maximumConnections: 2, maximumBytes: 1024, lingerTime: .seconds(60))
        let (server, client) = try Self.pair()
        closer.close(server)
        let chunk = [UInt8](repeating: 65, count: 512)
        // The closer reads what comes; after 1 KiB it closes, and sending then fails.
        var sent = 0
        let cut = await eventually {
            let result = send(client, chunk, chunk.count, Int32(MSG_NOSIGNAL))
            if result > 0 { sent += result }
            return result < 0
        }
        #expect(cut && sent >= 1024, "sent \(sent)")
        close(client)
    }

    private func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
