import Glibc
import WireFormats

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
    /// Longest time from accept to the first complete request. A connection that sends nothing
    /// (or too little) is closed then, instead of holding a slot for `idleTimeout`.
    public var firstRequestTimeout: Duration = .seconds(10)
    /// Connections served at once. At the cap a new connection first evicts the oldest one that
    /// waits for input (idle keep-alive before half-received); only when every connection is
    /// inside a handler does it get 503 and is closed.
    public var maxConnections: Int = 64
    /// Connections one Unix-socket peer uid may hold (other than `ownerUID`); beyond it the uid's
    /// own oldest waiting connection is evicted, or the new one gets 503. A small share of
    /// `maxConnections`, so no single uid can fill the server.
    public var maxConnectionsPerUID: Int = 16
    /// The uid the share does not apply to: the server's own user (in per-user mode the only
    /// one served, who may run many clients at once).
    public var ownerUID: UInt32 = getuid()
    /// How long `stop` lets in-flight requests finish before cutting their connections.
    public var drainTimeout: Duration = .seconds(5)

    public init() {}
}
