import WireFormats

/// A failed exchange, and whether the server had sent nothing at all (the only case in which
/// an idempotent request may be retried on a fresh connection).
struct ExchangeFailure: Error {
    var error: HTTPClientError
    var nothingReceived: Bool
}

/// One request/response round trip on an established connection, framed by the codec's
/// `HTTPResponseParser` (chunked decoding, 1xx skipping, HEAD/204/304, read-until-close).
enum ResponseExchange {
    /// Sends `bytes` and reads the response. `reusable` tells whether the connection may
    /// carry another request (keep-alive, complete framing, nothing extra buffered).
    /// `cutShortAfter`: an open-ended body (an event stream read for a window): at the deadline,
    /// or this long after the first body bytes came, a response whose head has arrived is
    /// returned with the body so far, not a timeout; what came is handed over without waiting
    /// for the rest of the window, and a burst of events travels together.
    static func run(
        _ bytes: [UInt8], method: String, on connection: ClientConnection, maxBodyBytes: Int, deadline: Deadline,
        cutShortAfter linger: Duration? = nil
    ) throws(ExchangeFailure) -> (response: HTTPResponse, reusable: Bool) {
        var deadline = deadline
        var lingering = false
        do {
            try connection.write(bytes, until: deadline)
        } catch {
            throw ExchangeFailure(error: error, nothingReceived: true)
        }
        var limits = HTTPLimits.client
        limits.maxBodyBytes = maxBodyBytes
        var parser = HTTPResponseParser(limits: limits)
        var received = 0
        while true {
            do {
                if let response = try parser.nextResponse(to: method) {
                    return (response, parser.canReuseConnection && !parser.hasPartialResponse)
                }
            } catch {
                throw ExchangeFailure(error: classify(error, limit: maxBodyBytes), nothingReceived: false)
            }
            if let linger, !lingering, parser.bodyBytesSoFar > 0 {
                lingering = true
                deadline = Deadline.earliest(deadline, Deadline.after(linger, what: "the end of a stream's first burst"))
            }
            let chunk: ArraySlice<UInt8>
            do {
                chunk = try connection.read(until: deadline)
            } catch {
                if linger != nil, case .timeout = error, let partial = parser.cutShort() { return (partial, false) }
                throw ExchangeFailure(error: error, nothingReceived: received == 0)
            }
            if chunk.isEmpty {
                if received == 0 {
                    throw ExchangeFailure(
                        error: .protocolError("the server closed the connection without answering; try again"),
                        nothingReceived: true)
                }
                parser.finishInput()
            }
            received += chunk.count
            parser.append(chunk)
        }
    }

    static func classify(_ error: HTTPError, limit: Int) -> HTTPClientError {
        switch error {
        case .bodyTooLarge: .tooLarge(limit: limit)
        case .truncated: .protocolError("the server closed the connection in the middle of the response; try again")
        default: .protocolError("\(error); the server did not answer with valid HTTP/1.1")
        }
    }
}

/// Opens a CONNECT tunnel through an HTTP proxy (RFC 9110 §9.3.6). Credentials travel only in
/// the Proxy-Authorization header and never appear in errors.
enum ProxyTunnel {
    static func open(on connection: ClientConnection, to url: ClientURL, via proxy: ProxyEndpoint, deadline: Deadline)
        throws(HTTPClientError)
    {
        let authority = "\(url.hostURIText):\(url.port)"
        var headers = HTTPHeaders([("Host", authority)])
        if let authorization = proxy.authorization { headers.add(name: "Proxy-Authorization", value: authorization) }
        let bytes: [UInt8]
        do {
            bytes = try HTTPRequest(method: "CONNECT", target: authority, headers: headers).serialized()
        } catch {
            throw .invalidURL("cannot build a CONNECT request for \(authority): \(error)")
        }
        let response: HTTPResponse
        do {
            (response, _) = try ResponseExchange.run(
                bytes, method: "CONNECT", on: connection, maxBodyBytes: 64 * 1024, deadline: deadline)
        } catch {
            throw error.error
        }
        guard (200..<300).contains(response.status) else {
            let advice = response.status == 407 ? "check the credentials in HTTPS_PROXY" : "check HTTPS_PROXY and NO_PROXY"
            throw .connectFailure(
                host: url.host, port: url.port,
                reason: "proxy \(proxy) answered \(response.status) \(response.reason) to CONNECT; \(advice)")
        }
    }
}
