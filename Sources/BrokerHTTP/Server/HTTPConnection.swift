import Dispatch
import Glibc
import Synchronization

/// One accepted connection, served on its own thread by `run()`.
struct HTTPConnection: Sendable {
    let server: HTTPServer
    let state: HTTPServer.ConnectionState
    let info: ConnectionInfo

    let executor = ConnectionExecutor()

    var fd: Int32 { state.fd }

    private static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    func run() {
        defer { server.finish(info.id, fd: fd) }
        // Idle waits are a plain blocking recv bounded by SO_RCVTIMEO (one syscall per request);
        // only partial requests pay for poll() with the exact remaining deadline.
        Socket.setReceiveTimeout(fd, server.configuration.idleTimeout)
        var parser = HTTPRequestParser(limits: server.configuration.limits)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var requestStarted: ContinuousClock.Instant?
        var continueSent = false
        while true {
            do {
                while let request = try parser.nextRequest() {
                    guard respond(to: request, keepAlive: parser.lastRequestKeepAlive) else { return }
                    continueSent = false
                    requestStarted = parser.hasPartialRequest ? .now : nil
                }
            } catch {
                sendError(status: error.status, error.description)
                return
            }
            if parser.awaitsBodyWithContinue && !continueSent {
                continueSent = true
                guard Socket.sendAll(fd, Self.continueResponse) else { return }
            }
            guard receive(into: &parser, buffer: &buffer, requestStarted: &requestStarted) else { return }
        }
    }

    /// Waits for and appends the next bytes. False when the connection must end (timeout
    /// answered with 408, peer gone, or server stopping while idle).
    private func receive(
        into parser: inout HTTPRequestParser, buffer: inout [UInt8], requestStarted: inout ContinuousClock.Instant?
    ) -> Bool {
        let configuration = server.configuration
        let count: Int
        if parser.hasPartialRequest {
            let left = configuration.requestDeadline - (ContinuousClock.now - (requestStarted ?? .now))
            let timeout = min(configuration.readTimeout, left)
            if timeout <= .zero { return timeOut() }
            switch Socket.waitReadable(fd, timeout: timeout) {
            case .readable: break
            case .timedOut: return timeOut()
            case .failed: return false
            }
            count = Socket.receive(fd, into: &buffer)
        } else {
            guard server.markIdle(state) else { return false }
            count = Socket.receive(fd, into: &buffer)  // EAGAIN after idleTimeout: just close
            state.idle.store(false, ordering: .sequentiallyConsistent)
        }
        // End of stream or error: a half-sent request cannot be answered usefully.
        guard count > 0 else { return false }
        if requestStarted == nil { requestStarted = .now }
        parser.append(buffer[0..<count])
        return true
    }

    private func timeOut() -> Bool {
        sendError(status: 408, "request not received in time")
        return false
    }

    /// Answers one request; true when the connection stays open for the next.
    private func respond(to request: HTTPRequest, keepAlive: Bool) -> Bool {
        let response = server.handler.handleImmediately(request, connection: info) ?? awaitHandler(request)
        let keep = keepAlive && request.version.minor >= 1 && !server.isStopping
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
        let handler = server.handler
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
