import WireFormats

/// The outbound HTTP/1.1 client on OpenSSL: HTTPS with TLS ≥ 1.2, SNI and hostname
/// verification against the system trust store plus an optional CA file; plain http only
/// to loopback hosts; CONNECT proxies; connect and total timeouts; a response size cap;
/// keep-alive reuse; redirects returned to the caller, never followed.
///
/// All blocking work runs on a thread of the client's own (parked between requests), never on
/// the Swift cooperative pool. A request is sent at most once unless it is a GET or HEAD that failed on a reused
/// connection before any response byte arrived (the server had closed the idle connection):
/// a POST carrying an authorization code is never sent twice.
public final class HTTPClient: HTTPTransport {
    public let configuration: HTTPClientConfiguration
    private let tlsContext: LazyTLSContext
    private let pool: ConnectionPool
    /// The threads requests block on. Parked between requests, so a refresh (and the discovery
    /// and JWKS fetches beside it) does not pay a thread start and an 8 MiB stack's release at
    /// exit on the way to its answer (docs/BENCHMARKS.md, "Forced refresh").
    let threads = ConnectionThreadPool(maximumParked: 4, parkedTimeout: .seconds(10))

    /// Cheap unless `configuration.caFile` is set: that file is loaded (with the system trust
    /// store) at once, so a wrong path fails here — at daemon start or SIGHUP — not at the first
    /// login. Without one, the system trust store is loaded on the first https connection.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws(HTTPClientConfigurationError) {
        self.configuration = configuration
        tlsContext = try LazyTLSContext(caFile: configuration.caFile)
        pool = ConnectionPool(maxIdlePerKey: configuration.maxIdleConnectionsPerHost, idleTimeout: configuration.idleTimeout)
    }

    /// How long a windowed stream is read after its first body bytes (`HTTPClientRequest.streamWindow`).
    static let streamLinger: Duration = .seconds(1)

    deinit { threads.close() }  // parked threads exit now, not after their timeout

    public func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPResponse {
        let url = try ClientURL(request.url)
        let deadline = Deadline.after(
            configuration.totalTimeout,
            what:
                "no complete response from \(url.authority) within the total timeout of \(configuration.totalTimeout); try again later or raise the timeout"
        )
        let result = await BlockingThread.run(deadline: deadline, onOverrun: deadline.timeoutError, on: threads) { [self] in
            Result { () throws(HTTPClientError) in try perform(request, to: url, deadline: deadline) }
        }
        return try result.get()
    }

    /// Whether the TLS context (the trust store) has been loaded yet; for tests.
    var hasTLSContext: Bool { tlsContext.isBuilt }

    /// Idle keep-alive connections currently pooled.
    public var idleConnectionCount: Int { pool.idleCount }

    private func perform(_ request: HTTPClientRequest, to url: ClientURL, deadline: Deadline) throws(HTTPClientError)
        -> HTTPResponse
    {
        let bytes = try wireBytes(of: request, to: url)
        let key = ConnectionKey(
            scheme: url.scheme, host: url.host, port: url.port, proxy: configuration.proxy.proxy(for: url),
            pins: request.pins)
        if let window = request.streamWindow {
            // A stream is cut when its window ends: a connection of its own, never pooled.
            let cut = Deadline.earliest(deadline, Deadline.after(window, what: "the stream window of \(window)"))
            let connection = try open(key, for: url, deadline: deadline)
            do {
                return try ResponseExchange.run(
                    bytes, method: request.method, on: connection, maxBodyBytes: configuration.maxResponseBytes, deadline: cut,
                    cutShortAfter: Self.streamLinger
                ).response
            } catch {
                throw error.error
            }
        }
        if let pooled = pool.take(key) {
            do {
                return try complete(bytes, method: request.method, on: pooled, deadline: deadline)
            } catch {
                guard error.nothingReceived, ["GET", "HEAD"].contains(request.method) else { throw error.error }
                // Safe to resend: idempotent, and the server never started answering.
            }
        }
        let connection = try open(key, for: url, deadline: deadline)
        do {
            return try complete(bytes, method: request.method, on: connection, deadline: deadline)
        } catch {
            throw error.error
        }
    }

    private func complete(
        _ bytes: [UInt8], method: String, on connection: ClientConnection, deadline: Deadline
    ) throws(ExchangeFailure) -> HTTPResponse {
        let (response, reusable) = try ResponseExchange.run(
            bytes, method: method, on: connection, maxBodyBytes: configuration.maxResponseBytes, deadline: deadline)
        if reusable { pool.put(connection) }
        return response
    }

    /// A new connection for `key`: TCP (to the proxy, then a CONNECT tunnel), then TLS for https.
    private func open(_ key: ConnectionKey, for url: ClientURL, deadline total: Deadline) throws(HTTPClientError)
        -> ClientConnection
    {
        let target = key.proxy.map { ($0.host, $0.port) } ?? (url.host, url.port)
        let connectDeadline = Deadline.earliest(
            total,
            Deadline.after(
                configuration.connectTimeout,
                what:
                    "connecting to \(target.0):\(target.1) took longer than the connect timeout of \(configuration.connectTimeout); check the network or the proxy settings"
            ))
        let socket = try ClientSocket.connect(host: target.0, port: target.1, deadline: connectDeadline)
        let connection = ClientConnection(key: key, socket: socket)
        if let proxy = key.proxy {
            try ProxyTunnel.open(on: connection, to: url, via: proxy, deadline: connectDeadline)
        }
        if url.scheme == .https {
            try connection.startTLS(context: try tlsContext.get(for: url.host), host: url.host, until: connectDeadline)
        }
        return connection
    }

    /// The request as bytes: origin-form target, Host, User-Agent, framing by the codec.
    private func wireBytes(of request: HTTPClientRequest, to url: ClientURL) throws(HTTPClientError) -> [UInt8] {
        var headers = request.headers
        headers.replaceOrAdd(name: "Host", value: url.authority)
        if headers["User-Agent"] == nil { headers.add(name: "User-Agent", value: configuration.userAgent) }
        do {
            return try HTTPRequest(method: request.method, target: url.target, headers: headers, body: request.body).serialized()
        } catch {
            throw .invalidURL("the request cannot be sent (\(error)); fix the method, path or header fields")
        }
    }
}
