/// Limits and timeouts of an `HTTPServer`.
public struct HTTPServerConfiguration: Sendable {
    /// Parser limits (request line, headers, body).
    public var limits: HTTPLimits = .server
    /// Longest wait for the next bytes while a request is partly received (answered with 408).
    public var readTimeout: Duration = .seconds(10)
    /// Longest time from the first byte of a request to its last: a client trickling one byte
    /// per second is cut off here even though no single read times out (slowloris).
    public var requestDeadline: Duration = .seconds(30)
    /// How long an idle keep-alive connection stays open waiting for its next request.
    public var idleTimeout: Duration = .seconds(60)
    /// Connections served at once; the next ones get 503 and are closed.
    public var maxConnections: Int = 64
    /// How long `stop` lets in-flight requests finish before cutting their connections.
    public var drainTimeout: Duration = .seconds(5)

    public init() {}
}
