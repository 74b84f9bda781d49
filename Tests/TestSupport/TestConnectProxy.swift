import Foundation
import Synchronization

/// A minimal HTTP CONNECT proxy on 127.0.0.1 for tests. Every tunnel leads to 127.0.0.1 at the
/// requested port, whatever the host name (so a test can reach "other.example" without DNS);
/// it counts tunnels, remembers the Proxy-Authorization values it saw, and splices both ways.
public final class TestConnectProxy: Sendable {
    private let listener: LoopbackListener
    private let state = Mutex<(connections: Int, tunnels: Int, authorizations: [String], targets: [String])>((0, 0, [], []))

    public var port: Int { listener.port }
    /// Connections accepted so far, whatever they asked (CONNECT or not).
    public var connectionCount: Int { state.withLock { $0.connections } }
    /// The number of CONNECT tunnels opened so far.
    public var tunnelCount: Int { state.withLock { $0.tunnels } }
    /// Proxy-Authorization header values received, in order.
    public var authorizations: [String] { state.withLock { $0.authorizations } }
    /// CONNECT targets (`host:port`) received, in order.
    public var targets: [String] { state.withLock { $0.targets } }

    public init(lifetime: Duration = .seconds(30)) throws {
        listener = try LoopbackListener(lifetime: lifetime)
        listener.acceptLoop { [self] client in serve(client) }
    }

    public func stop() { listener.stop() }

    private func serve(_ client: Int32) {
        defer { close(client) }
        state.withLock { $0.connections += 1 }
        guard let head = readHead(client) else { return }
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count == 3, requestLine[0] == "CONNECT",
            let port = requestLine[1].split(separator: ":").last.flatMap({ Int($0) })
        else {
            LoopbackListener.sendAll(client, Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n".utf8))
            return
        }
        let authorization = lines.first { $0.lowercased().hasPrefix("proxy-authorization:") }
            .map { String($0.dropFirst("proxy-authorization:".count)).trimmingCharacters(in: .whitespaces) }
        guard let upstream = Self.connectLoopback(port: port) else {
            LoopbackListener.sendAll(client, Array("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".utf8))
            return
        }
        defer { close(upstream) }
        state.withLock { state in
            state.tunnels += 1
            state.targets.append(String(requestLine[1]))
            if let authorization { state.authorizations.append(authorization) }
        }
        LoopbackListener.sendAll(client, Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
        splice(client, upstream)
    }

    /// Reads byte by byte up to the blank line, so no tunnel byte is consumed with the head.
    private func readHead(_ fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 8192 {
            guard recv(fd, &byte, 1, 0) == 1 else { return nil }
            bytes.append(byte)
            if bytes.suffix(4) == [13, 10, 13, 10] { return String(decoding: bytes.dropLast(4), as: UTF8.self) }
        }
        return nil
    }

    private func splice(_ a: Int32, _ b: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !listener.isStopped {
            var entries = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
            guard poll(&entries, 2, 100) >= 0 else { return }
            for (index, entry) in entries.enumerated() where entry.revents != 0 {
                let count = recv(entry.fd, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                guard LoopbackListener.sendAll(index == 0 ? b : a, Array(buffer[..<count])) else { return }
            }
        }
    }

    private static func connectLoopback(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if connected != 0 {
            close(fd)
            return nil
        }
        return fd
    }
}
