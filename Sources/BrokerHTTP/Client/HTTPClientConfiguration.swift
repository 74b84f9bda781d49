/// Settings of an `HTTPClient`. The defaults suit calls to identity providers.
public struct HTTPClientConfiguration: Sendable {
    /// A PEM bundle of extra CA certificates trusted in addition to the system trust store
    /// (for private or corporate CAs, and for tests).
    public var caFile: String?
    /// Limit for establishing a connection: TCP connect, proxy CONNECT and the TLS handshake.
    public var connectTimeout: Duration
    /// Limit for the whole request, from name resolution to the last byte of the response.
    public var totalTimeout: Duration
    /// Largest accepted response body (decoded); beyond it the request fails with `.tooLarge`.
    public var maxResponseBytes: Int
    /// The CONNECT proxy settings, usually `ProxyConfiguration(environment:)`.
    public var proxy: ProxyConfiguration
    /// Sent as `User-Agent` unless the request sets its own.
    public var userAgent: String
    /// Idle keep-alive connections kept per (scheme, host, port, proxy); 0 disables reuse.
    public var maxIdleConnectionsPerHost: Int
    /// How long an idle connection may be reused; servers close idle ones after a few seconds.
    public var idleTimeout: Duration

    public init(
        caFile: String? = nil, connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(30),
        maxResponseBytes: Int = 1024 * 1024, proxy: ProxyConfiguration = .none, userAgent: String = "authbroker",
        maxIdleConnectionsPerHost: Int = 4, idleTimeout: Duration = .seconds(4)
    ) {
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxResponseBytes = maxResponseBytes
        self.proxy = proxy
        self.userAgent = userAgent
        self.maxIdleConnectionsPerHost = maxIdleConnectionsPerHost
        self.idleTimeout = idleTimeout
    }
}
