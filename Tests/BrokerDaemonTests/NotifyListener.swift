import Foundation

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`: an abstract name (no file, no
/// permissions, so a daemon running as another uid can reach it too).
final class NotifyListener: Sendable {
    let address: String
    private let fd: Int32

    init() throws {
        address = "@authbroker-test-\(UInt64.random(in: 0...UInt64.max))"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let name = Array(address.utf8.dropFirst())
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            raw[0] = 0
            for (index, byte) in name.enumerated() { raw[index + 1] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + name.count)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
    }

    deinit { close(fd) }

    /// The next datagram, or nil after `timeout` seconds.
    func receive(timeout: Double) -> String? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Datagrams until one contains `line` (as a whole line); nil when none did within `timeout`.
    /// Waits on its own thread: poll(2) blocks, and the cooperative pool must not.
    func wait(for line: String, timeout: Double = 30) async -> [String]? {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.waitBlocking(for: line, timeout: timeout)) }.start()
        }
    }

    private func waitBlocking(for line: String, timeout: Double) -> [String]? {
        let deadline = Date().addingTimeInterval(timeout)
        var seen: [String] = []
        while deadline.timeIntervalSinceNow > 0 {
            guard let message = receive(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { continue }
            seen.append(message)
            if message.split(separator: "\n").contains(Substring(line)) { return seen }
        }
        return nil
    }
}

/// Calls `body` with `path` as a Unix socket address (bind, connect) and its length.
func withUnixAddress<T>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
    }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}
