/// Hard size limits applied while parsing. Exceeding one is an `HTTPError` that maps to a 4xx.
///
/// The defaults are the project's: request line 8 KiB, header section 16 KiB / 100 fields,
/// request bodies 64 KiB on the servers, response bodies 1 MiB on the client.
public struct HTTPLimits: Sendable, Equatable {
    /// Longest request line or status line, without its CRLF (414 for requests).
    public var maxStartLineBytes: Int
    /// Longest header section (all field lines with their CRLFs), and separately the trailer section (431).
    public var maxHeaderBytes: Int
    /// Most header fields (and, separately, trailer fields) in one message (431).
    public var maxHeaderFields: Int
    /// Largest decoded body (413).
    public var maxBodyBytes: Int
    /// Longest chunk-size line, extensions included (400): nothing legitimate comes close.
    public var maxChunkLineBytes: Int

    public init(
        maxStartLineBytes: Int = 8 * 1024, maxHeaderBytes: Int = 16 * 1024, maxHeaderFields: Int = 100,
        maxBodyBytes: Int, maxChunkLineBytes: Int = 1024
    ) {
        self.maxStartLineBytes = maxStartLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderFields = maxHeaderFields
        self.maxBodyBytes = maxBodyBytes
        self.maxChunkLineBytes = maxChunkLineBytes
    }

    /// Limits for requests received by our servers: bodies up to 64 KiB.
    public static let server = HTTPLimits(maxBodyBytes: 64 * 1024)
    /// Limits for responses received by the HTTPS client: bodies up to 1 MiB.
    public static let client = HTTPLimits(maxBodyBytes: 1024 * 1024)
}
