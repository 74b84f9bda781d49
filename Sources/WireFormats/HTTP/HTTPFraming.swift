/// What the header section says about the body and the connection, gathered while the field
/// lines are parsed (RFC 9112 §6, §9.3). Conflicts that enable request smuggling are errors.
struct HTTPFraming: Sendable {
    /// How the body of a message is delimited.
    enum BodyMode: Equatable {
        case none
        case length(Int)
        case chunked
        /// Response without Content-Length or chunked: the body ends when the server closes.
        case untilClose
        /// A 1xx interim response: no body, and the final response follows.
        case interim
    }

    var contentLength: Int?
    var transferCodings: [ArraySlice<UInt8>] = []
    var hasTransferEncoding = false
    var connectionClose = false
    var connectionKeepAlive = false
    var expectContinue = false

    /// Records one header field if it matters for framing.
    mutating func record(name: ArraySlice<UInt8>, value: ArraySlice<UInt8>) throws(HTTPError) {
        if HTTPSyntax.equalsLowercased(name, "content-length") {
            try recordContentLength(value)
        } else if HTTPSyntax.equalsLowercased(name, "transfer-encoding") {
            hasTransferEncoding = true
            transferCodings += HTTPSyntax.listElements(value)
        } else if HTTPSyntax.equalsLowercased(name, "connection") {
            for token in HTTPSyntax.listElements(value) {
                if HTTPSyntax.equalsLowercased(token, "close") { connectionClose = true }
                if HTTPSyntax.equalsLowercased(token, "keep-alive") { connectionKeepAlive = true }
            }
        } else if HTTPSyntax.equalsLowercased(name, "expect") {
            expectContinue = HTTPSyntax.equalsLowercased(value, "100-continue")
        }
    }

    /// Several Content-Length fields or list elements are accepted only when all are the same
    /// plain decimal number (RFC 9110 §8.6); anything else is a smuggling attempt.
    private mutating func recordContentLength(_ value: ArraySlice<UInt8>) throws(HTTPError) {
        for element in HTTPSyntax.listElements(value) {
            guard let length = HTTPSyntax.decimal(element) else {
                throw .malformed("Content-Length is not a plain decimal number")
            }
            if let previous = contentLength, previous != length {
                throw .malformed("conflicting Content-Length values")
            }
            contentLength = length
        }
    }

    /// Persistence (RFC 9112 §9.3): HTTP/1.1 stays open unless `close`; 1.0 only with `keep-alive`.
    func keepAlive(version: HTTPVersion) -> Bool {
        if connectionClose { return false }
        return version.minor >= 1 || connectionKeepAlive
    }

    /// Body framing of a request: Content-Length, chunked, or no body.
    func requestBodyMode(version: HTTPVersion, limits: HTTPLimits) throws(HTTPError) -> BodyMode {
        if hasTransferEncoding {
            if version.minor == 0 { throw .malformed("Transfer-Encoding in an HTTP/1.0 request") }
            return try chunkedOnly()
        }
        return try lengthMode(limits: limits, otherwise: .none)
    }

    /// Body framing of a response, which also depends on the request method and the status.
    func responseBodyMode(status: Int, requestMethod: String, limits: HTTPLimits) throws(HTTPError) -> BodyMode {
        if status == 101 { throw .malformed("unexpected 101 Switching Protocols") }
        if status < 200 { return .interim }
        if requestMethod == "HEAD" || status == 204 || status == 304 { return .none }
        if requestMethod == "CONNECT" && status < 300 { return .none }
        if hasTransferEncoding { return try chunkedOnly() }
        return try lengthMode(limits: limits, otherwise: .untilClose)
    }

    private func chunkedOnly() throws(HTTPError) -> BodyMode {
        if contentLength != nil { throw .malformed("both Content-Length and Transfer-Encoding") }
        if transferCodings.count == 1, HTTPSyntax.equalsLowercased(transferCodings[0], "chunked") {
            return .chunked
        }
        if let other = transferCodings.first(where: { HTTPSyntax.isToken($0) && !HTTPSyntax.equalsLowercased($0, "chunked") }) {
            throw .unsupportedTransferCoding(HTTPSyntax.string(other.prefix(32)))
        }
        throw .malformed("Transfer-Encoding must be exactly 'chunked'")
    }

    private func lengthMode(limits: HTTPLimits, otherwise: BodyMode) throws(HTTPError) -> BodyMode {
        guard let length = contentLength else { return otherwise }
        if length > limits.maxBodyBytes { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
        return length == 0 ? .none : .length(length)
    }
}
