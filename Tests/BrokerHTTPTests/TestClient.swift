import BrokerHTTP
import Foundation
import Glibc
import TestSupport

/// Runs blocking client code on its own thread: the cooperative pool (2 threads here) must stay
/// free for the servers' async handlers.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

struct TestClientError: Error, CustomStringConvertible {
    let description: String
}

/// A blocking test client with a 5 s receive timeout, so no test can hang.
/// `@unchecked Sendable`: tests hand it from one thread to the next, never use it from two at once.
final class TestClient: @unchecked Sendable {
    let fd: Int32
    private var parser = HTTPResponseParser()

    init(unixPath path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try check(result, "connect \(path)")
        setTimeout()
    }

    init(host: String, port: Int) throws {
        let v6 = host.contains(":")
        fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let result: Int32
        if v6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        try check(result, "connect \(host):\(port)")
        setTimeout()
    }

    deinit { close(fd) }

    private func check(_ result: Int32, _ what: String) throws {
        if result != 0 {
            // No close here: deinit runs for a class whose init throws after initializing fd.
            let code = errno
            throw TestClientError(description: "\(what): errno \(code)")
        }
    }

    private func setTimeout() {
        // Generous: a loaded CI machine can stall a thread for seconds; a hang still ends here.
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends raw bytes; false when the server has gone away.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) == $0.count }
    }

    /// Reads one response (nil at end of stream before any response).
    func readResponse(method: String = "GET") throws -> HTTPResponse? {
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            if let response = try parser.nextResponse(to: method) { return response }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0 { throw TestClientError(description: "recv: errno \(errno)") }
            if count == 0 {
                parser.finishInput()
                if !parser.hasPartialResponse { return nil }
                continue
            }
            parser.append(buffer[0..<count])
        }
    }

    /// Sends a GET and reads its response.
    func get(_ target: String, headers: String = "") throws -> HTTPResponse? {
        send("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\(headers)\r\n")
        return try readResponse()
    }

    /// True when the server closed the connection (EOF within the timeout).
    func isClosedByServer() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A Unix stream socket bound at `path` (not listening): what systemd passes, or what a crashed
/// daemon leaves behind once closed. Returns the descriptor and bind's result.
func bindUnixSocket(at path: String) -> (fd: Int32, bound: Int32) {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    return (fd, bound)
}

extension HTTPClient {
    /// The TLS tests' client: trusting the test CA of `certificates` (nil: only the system store),
    /// short connect and total timeouts, and a long idle timeout — on a loaded machine seconds can
    /// pass between two requests of a keep-alive test.
    static func forTLSTests(trusting certificates: TestCertificates?) throws -> HTTPClient {
        try HTTPClient(
            configuration: HTTPClientConfiguration(
                caFile: certificates?.caFile, connectTimeout: .seconds(5), totalTimeout: .seconds(10), idleTimeout: .seconds(60)))
    }
}
