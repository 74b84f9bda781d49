import Glibc
import SystemCalls

/// A connected, non-blocking TCP socket owned by this object (closed in `deinit`).
///
/// Every wait goes through `poll` with a `Deadline`, which is how the connect and total
/// timeouts are enforced without signals or extra threads.
final class ClientSocket {
    let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// Resolves `host` and connects to the first address that answers before `deadline`.
    static func connect(host: String, port: Int, deadline: Deadline) throws(HTTPClientError) -> ClientSocket {
        let addresses = try HostResolver.resolve(host: host, port: port)
        var lastError = HTTPClientError.connectFailure(host: host, port: port, reason: "no address to try")
        for address in addresses {
            do {
                return try connect(to: address, host: host, port: port, deadline: deadline)
            } catch {
                if case .timeout = error { throw error }
                lastError = error
            }
        }
        throw lastError
    }

    private static func connect(
        to address: ResolvedAddress, host: String, port: Int, deadline: Deadline
    ) throws(HTTPClientError) -> ClientSocket {
        let type = Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue)
        let fd = socket(address.family, type, 0)
        guard fd >= 0 else {
            throw .connectFailure(host: host, port: port, reason: "socket(): \(Errno.current)")
        }
        let socket = ClientSocket(fd: fd)
        var storage = address.storage
        let result = withUnsafeBytes(of: &storage) { raw in
            Glibc.connect(fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), address.length)
        }
        if result != 0 {
            guard errno == EINPROGRESS else { throw socket.connectError(host: host, port: port, code: errno) }
            try socket.wait(for: Int16(POLLOUT), until: deadline)
            var pending: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &pending, &size)
            if pending != 0 { throw socket.connectError(host: host, port: port, code: pending) }
        }
        // Requests go out in one write, but the TLS handshake does not: avoid Nagle's 40 ms stalls.
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return socket
    }

    private func connectError(host: String, port: Int, code: Int32) -> HTTPClientError {
        let reason = Errno(code).description
        let advice = code == ECONNREFUSED ? "; is the server running on that port?" : "; check the network and the URL"
        return .connectFailure(host: host, port: port, reason: reason + advice)
    }

    /// Waits until the socket is ready for `events`, or throws the deadline's timeout.
    func wait(for events: Int16, until deadline: Deadline) throws(HTTPClientError) {
        while true {
            if deadline.remainingMilliseconds == 0 { throw deadline.timeoutError }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            // An interrupted poll is retried with the time left (0 returns at once: timeout above).
            let ready = SystemCall.retryingInterrupts { poll(&entry, 1, deadline.remainingMilliseconds) }
            if ready > 0 { return }
            if ready < 0 { throw .protocolError("poll failed: \(Errno.current); try again") }
        }
    }

    /// Sends all of `bytes`, waiting for buffer space as needed.
    func send(_ bytes: [UInt8], until deadline: Deadline) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                SystemCall.retryingInterrupts {
                    Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                }
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && errno == EAGAIN {
                try wait(for: Int16(POLLOUT), until: deadline)
            } else {
                throw .protocolError("the connection was closed while sending (\(Errno.current)); try again")
            }
        }
    }

    /// Reads what is available into `buffer`; returns 0 at end of stream.
    func receive(into buffer: inout [UInt8], until deadline: Deadline) throws(HTTPClientError) -> Int {
        while true {
            let received = buffer.withUnsafeMutableBytes { raw in
                SystemCall.retryingInterrupts { recv(fd, raw.baseAddress!, raw.count, 0) }
            }
            if received > 0 {
                // ACK at once, not up to 40 ms later: a server that writes its answer's end in a
                // small segment of its own (a chunked SSE stream's last chunk) waits for that ACK
                // under Nagle, and this client reads to the end (docs/BENCHMARKS.md, "MCP bridge").
                // Quick-ack mode lapses by itself, hence after every read.
                var one: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
            }
            if received >= 0 { return received }
            guard errno == EAGAIN else {
                throw .protocolError("the connection failed while reading (\(Errno.current)); try again")
            }
            try wait(for: Int16(POLLIN), until: deadline)
        }
    }

    /// True when the peer has neither closed the connection nor sent anything unexpected:
    /// an idle keep-alive connection must have nothing to read.
    var isIdleAndOpen: Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 0
    }
}
