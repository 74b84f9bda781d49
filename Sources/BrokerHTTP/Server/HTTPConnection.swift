import Dispatch
import Glibc
import Synchronization
import WireFormats

/// One accepted connection, served on its own thread by `run()`.
struct HTTPConnection: Sendable {
    let server: HTTPServer
    /// The server's handler, or on a multiplexed server the one of the listener it came through.
    let handler: any HTTPHandler
    let state: HTTPServer.ConnectionState
    let info: ConnectionInfo

    let executor = ConnectionExecutor()

    var fd: Int32 { state.fd }

    private static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    func run() {
        defer { server.finish(info.id, fd: fd) }
        handler.connectionStarted(info)
        // Idle waits are a plain blocking recv bounded by SO_RCVTIMEO (one syscall per request);
        // partial requests and the first one pay for poll() with the exact remaining deadline.
        Socket.setReceiveTimeout(fd, server.configuration.idleTimeout)
        var parser = HTTPRequestParser(limits: server.configuration.limits)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var deadlines = RequestDeadlines(
            firstRequestBy: .now + server.configuration.firstRequestTimeout, requestStarted: nil)
        var continueSent = false
        while true {
            do {
                while let request = try parser.nextRequest() {
                    // Evicted while the last bytes arrived: the descriptor is already shut down.
                    guard state.phase == .handling || state.move(from: .receiving, to: .handling) else { return }
                    deadlines.firstRequestBy = nil
                    guard respond(to: request, keepAlive: parser.lastRequestKeepAlive) else { return }
                    continueSent = false
                    deadlines.requestStarted = parser.hasPartialRequest ? .now : nil
                }
            } catch {
                sendError(status: error.status, error.description)
                return
            }
            if parser.awaitsBodyWithContinue && !continueSent {
                continueSent = true
                guard Socket.sendAll(fd, Self.continueResponse) else { return }
            }
            guard receive(into: &parser, buffer: &buffer, deadlines: &deadlines) else { return }
        }
    }

    /// When the request being received must be complete: `requestDeadline` after its first
    /// byte, and — until the first request arrived — `firstRequestTimeout` after accept.
    struct RequestDeadlines {
        var firstRequestBy: ContinuousClock.Instant?
        var requestStarted: ContinuousClock.Instant?

        /// Plain optionals, no array: this runs before every receive.
        func earliest(requestDeadline: Duration) -> ContinuousClock.Instant? {
            guard let started = requestStarted.map({ $0 + requestDeadline }) else { return firstRequestBy }
            guard let firstRequestBy else { return started }
            return min(firstRequestBy, started)
        }
    }

    /// Waits for and appends the next bytes. False when the connection must end (timeout —
    /// answered with 408 when part of a request came —, peer gone, evicted, or server stopping
    /// while idle).
    private func receive(
        into parser: inout HTTPRequestParser, buffer: inout [UInt8], deadlines: inout RequestDeadlines
    ) -> Bool {
        let configuration = server.configuration
        let partial = parser.hasPartialRequest
        if partial {
            _ = state.move(from: .handling, to: .receiving)  // pipelined remainder: evictable again
        } else {
            guard server.markIdle(state) else { return false }
        }
        var count: Int
        if let deadline = deadlines.earliest(requestDeadline: configuration.requestDeadline) {
            let timeout = min(partial ? configuration.readTimeout : configuration.idleTimeout, deadline - .now)
            guard timeout > .zero else { return partial ? timeOut() : false }
            // A client sends its request right after connecting (authctl does), so the bytes are
            // usually there already: try without waiting, and poll only when nothing came yet.
            count = Socket.receive(fd, into: &buffer, waiting: false)
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                switch Socket.waitReadable(fd, timeout: timeout) {
                case .readable: break
                case .timedOut: return partial ? timeOut() : false
                case .failed: return false
                }
                count = Socket.receive(fd, into: &buffer)
            }
        } else {
            count = Socket.receive(fd, into: &buffer)  // idle: EAGAIN after idleTimeout, just close
        }
        // End of stream or error: a half-sent request cannot be answered usefully.
        guard count > 0 else { return false }
        if !partial {
            guard state.move(from: .idle, to: .receiving) else { return false }
            if deadlines.requestStarted == nil { deadlines.requestStarted = .now }
        }
        parser.append(buffer[0..<count])
        return true
    }

    private func timeOut() -> Bool {
        sendError(status: 408, "request not received in time")
        return false
    }

    /// Answers one request; true when the connection stays open for the next.
    private func respond(to request: HTTPRequest, keepAlive: Bool) -> Bool {
        let response = handler.handleImmediately(request, connection: info) ?? awaitHandler(request)
        let keep = keepAlive && request.version.minor >= 1 && !server.isStopping && !state.sourceRemoved
        let bytes: [UInt8]
        do {
            bytes = try response.serialized(keepAlive: keep, includeBody: request.method != "HEAD")
        } catch {
            sendError(status: 500, "the server produced an invalid response")
            return false
        }
        return Socket.sendAll(fd, bytes) && keep
    }

    /// Runs the async handler, executing its task on this (dedicated, non-pool) thread.
    private func awaitHandler(_ request: HTTPRequest) -> HTTPResponse {
        let handler = handler
        let info = info
        return executor.run { await handler.handle(request, connection: info) }
    }

    /// Sends the error answer, then closes "lingering": closing with unread input would make
    /// TCP reset the connection and the client might never see the answer.
    private func sendError(status: Int, _ reason: String) {
        guard let bytes = try? HTTPResponse.plainText(status: status, reason).serialized(keepAlive: false),
            Socket.sendAll(fd, bytes)
        else { return }
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
        var discard = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<16 {
            guard Socket.waitReadable(fd, timeout: .milliseconds(100)) == .readable,
                Socket.receive(fd, into: &discard) > 0
            else { return }
        }
    }
}
