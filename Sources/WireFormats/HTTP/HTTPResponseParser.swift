/// Incremental strict HTTP/1.1 response parser for the client.
///
/// The framing of a response depends on the request: pass its method to `nextResponse(to:)`
/// (HEAD and successful CONNECT responses have no body). 1xx interim responses are skipped,
/// 204/304 have no body, and a response with neither Content-Length nor chunked runs until the
/// server closes: call `finishInput()` at EOF to complete it.
public struct HTTPResponseParser: Sendable {
    private var core: HTTPMessageParser<ResponseKind>

    public init(limits: HTTPLimits = .client) {
        core = HTTPMessageParser(kind: ResponseKind(), limits: limits)
    }

    public var limits: HTTPLimits { core.limits }

    /// Adds received bytes.
    public mutating func append<C: Collection<UInt8>>(_ bytes: C) { core.append(bytes) }

    /// The same for a slice of a receive buffer, specialized (see HTTPMessageParser.append).
    public mutating func append(_ bytes: ArraySlice<UInt8>) { core.append(bytes) }

    /// Tells the parser the server closed its side.
    public mutating func finishInput() { core.finishInput() }

    /// The next complete response to a request made with `requestMethod`, or nil when more bytes
    /// are needed. Errors are final for the connection.
    public mutating func nextResponse(to requestMethod: String) throws(HTTPError) -> HTTPResponse? {
        core.kind.requestMethod = requestMethod
        return try core.next()
    }

    /// The response as far as it came (head and the body so far) when the reader stops an
    /// open-ended body on purpose; nil before the head. The parser is done afterwards.
    public mutating func cutShort() -> HTTPResponse? { core.cutShort() }

    /// Bytes of the current response's body decoded so far (0 before its head has ended).
    public var bodyBytesSoFar: Int { core.bodyBytesSoFar }

    /// Whether the connection can carry another request after the response last returned.
    public var canReuseConnection: Bool {
        core.lastBodyMode != .untilClose && core.lastFraming.keepAlive(version: core.kind.version)
    }

    /// True when part of a response is buffered.
    public var hasPartialResponse: Bool { core.hasPartialMessage }
}

/// status-line = HTTP-version SP status-code SP [ reason-phrase ] (RFC 9112 §4).
struct ResponseKind: HTTPMessageKind {
    var requestMethod = "GET"
    var version = HTTPVersion.http11
    var status = 0
    var reason = ""

    static func startLineTooLong(limit: Int) -> HTTPError { .malformed("status line longer than \(limit) bytes") }

    mutating func parseStartLine(_ line: ArraySlice<UInt8>) throws(HTTPError) {
        let parts = line.split(separator: HTTPSyntax.space, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[1].count == 3, let code = HTTPSyntax.decimal(parts[1]), code >= 100 else {
            throw .malformed("status line is not 'HTTP/1.1 NNN reason'")
        }
        let reasonBytes = parts.count == 3 ? parts[2] : []
        guard reasonBytes.allSatisfy(HTTPSyntax.isFieldValueByte) else {
            throw .malformed("control character in the reason phrase")
        }
        version = try HTTPVersionSyntax.parse(parts[0])
        status = code
        reason = HTTPSyntax.string(reasonBytes)
    }

    func bodyMode(_ framing: HTTPFraming, limits: HTTPLimits) throws(HTTPError) -> HTTPFraming.BodyMode {
        try framing.responseBodyMode(status: status, requestMethod: requestMethod, limits: limits)
    }

    func message(headers: HTTPHeaders, body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, reason: reason, headers: headers, body: body, version: version)
    }
}
