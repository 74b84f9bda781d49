/// Incremental strict HTTP/1.1 request parser for the servers.
///
/// Feed bytes with `append(_:)` as they arrive (split anywhere); call `nextRequest()` until it
/// returns nil to get every complete (possibly pipelined) request. Any `HTTPError` is final:
/// answer `error.status` with `Connection: close` and close the connection.
///
/// ```swift
/// var parser = HTTPRequestParser()
/// parser.append(bytesFromSocket)
/// while let request = try parser.nextRequest() { … }
/// ```
public struct HTTPRequestParser: Sendable {
    private var core: HTTPMessageParser<RequestKind>

    public init(limits: HTTPLimits = .server) {
        core = HTTPMessageParser(kind: RequestKind(), limits: limits)
    }

    public var limits: HTTPLimits { core.limits }

    /// Adds received bytes.
    public mutating func append<C: Collection<UInt8>>(_ bytes: C) { core.append(bytes) }

    /// The same for a slice of a receive buffer, specialized (see HTTPMessageParser.append).
    public mutating func append(_ bytes: ArraySlice<UInt8>) { core.append(bytes) }

    /// Tells the parser the peer closed its side; a partial request then throws `.truncated`.
    public mutating func finishInput() { core.finishInput() }

    /// The next complete request, or nil when more bytes are needed.
    public mutating func nextRequest() throws(HTTPError) -> HTTPRequest? { try core.next() }

    /// Whether the connection may stay open after answering the request last returned
    /// (HTTP/1.1 without `Connection: close`, or HTTP/1.0 with `keep-alive`).
    public var lastRequestKeepAlive: Bool { core.lastFraming.keepAlive(version: core.kind.version) }

    /// True when part of a request is buffered (a timeout then deserves a 408, not a silent close).
    public var hasPartialRequest: Bool { core.hasPartialMessage }

    /// True when the current request sent `Expect: 100-continue` and its body has not arrived:
    /// a server should send `HTTP/1.1 100 Continue` once so the client goes on.
    public var awaitsBodyWithContinue: Bool { core.awaitsBodyWithContinue }
}

/// request-line = method SP request-target SP HTTP-version (RFC 9112 §3).
struct RequestKind: HTTPMessageKind {
    var method = ""
    var target = ""
    var version = HTTPVersion.http11

    static func startLineTooLong(limit: Int) -> HTTPError { .startLineTooLong(limit: limit) }

    mutating func parseStartLine(_ line: ArraySlice<UInt8>) throws(HTTPError) {
        // Exactly two single spaces: found by index, not split into an array (once per request).
        guard let firstSpace = line.firstIndex(of: HTTPSyntax.space),
            let secondSpace = line[(firstSpace + 1)...].firstIndex(of: HTTPSyntax.space),
            !line[(secondSpace + 1)...].contains(HTTPSyntax.space)
        else { throw .malformed("request line is not 'METHOD target HTTP/1.1'") }
        let methodBytes = line[..<firstSpace]
        let targetBytes = line[(firstSpace + 1)..<secondSpace]
        guard HTTPSyntax.isToken(methodBytes) else { throw .malformed("invalid method") }
        try Self.checkTarget(targetBytes)
        version = try HTTPVersionSyntax.parse(line[(secondSpace + 1)...])
        method = HTTPSyntax.string(methodBytes)
        target = HTTPSyntax.string(targetBytes)
    }

    /// Origin-form ("/path?query") or "*" only: this is an origin server, not a proxy.
    private static func checkTarget(_ target: ArraySlice<UInt8>) throws(HTTPError) {
        guard let first = target.first, target.allSatisfy(HTTPSyntax.isTargetByte) else {
            throw .malformed("invalid request target")
        }
        guard first == UInt8(ascii: "/") || (target.count == 1 && first == UInt8(ascii: "*")) else {
            throw .malformed("request target must be a path starting with '/'")
        }
        if target.contains(UInt8(ascii: "#")) { throw .malformed("fragment in request target") }
    }

    func bodyMode(_ framing: HTTPFraming, limits: HTTPLimits) throws(HTTPError) -> HTTPFraming.BodyMode {
        try framing.requestBodyMode(version: version, limits: limits)
    }

    func message(headers: HTTPHeaders, body: [UInt8]) -> HTTPRequest {
        HTTPRequest(method: method, target: target, headers: headers, body: body, version: version)
    }
}

/// HTTP-version = "HTTP/" DIGIT "." DIGIT (RFC 9112 §2.3).
enum HTTPVersionSyntax {
    static func parse(_ bytes: ArraySlice<UInt8>) throws(HTTPError) -> HTTPVersion {
        // Compared with the literal's bytes in place: an array of them cost an allocation per request.
        guard bytes.count == 8, bytes.prefix(5).elementsEqual("HTTP/".utf8),
            bytes[bytes.startIndex + 6] == UInt8(ascii: "."),
            let major = digit(bytes[bytes.startIndex + 5]), let minor = digit(bytes[bytes.startIndex + 7])
        else { throw .malformed("invalid HTTP version") }
        guard major == 1 else { throw .unsupportedVersion("\(major).\(minor)") }
        // A higher 1.x minor version is answered as 1.1 (RFC 9110 §2.5).
        return HTTPVersion(major: 1, minor: min(minor, 1))
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }
}
