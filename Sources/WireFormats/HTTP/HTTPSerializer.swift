/// Wire encoding of requests and responses into one buffer, so each message goes out with a
/// single `send()` (Nagle + delayed ACK would otherwise cost ~40 ms per keep-alive request).
///
/// Bodies are always framed with Content-Length; any Content-Length, Transfer-Encoding or
/// Connection field set by the caller is replaced. Field names must be tokens and values must not
/// contain control characters (no header injection): otherwise `HTTPError.malformed` is thrown.
extension HTTPResponse {
    /// The bytes of this response.
    /// - Parameters:
    ///   - keepAlive: false adds `Connection: close` (the server closes after sending).
    ///   - includeBody: false for a response to HEAD (Content-Length still describes the body).
    public func serialized(keepAlive: Bool = true, includeBody: Bool = true) throws(HTTPError) -> [UInt8] {
        guard (100...999).contains(status) else { throw .malformed("status code \(status) out of range") }
        guard reason.utf8.allSatisfy(HTTPSyntax.isFieldValueByte) else {
            throw .malformed("control character in the reason phrase")
        }
        // RFC 9110 §8.6: no Content-Length (and no content) in 1xx and 204 responses; 304 has no content.
        let bodyAllowed = status >= 200 && status != 204 && status != 304
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + headers.fields.count * 40 + (includeBody ? body.count : 0))
        // Appended piece by piece: string interpolation here cost a temporary String per response.
        bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        bytes.append(contentsOf: String(status).utf8)
        bytes.append(HTTPSyntax.space)
        bytes.append(contentsOf: reason.utf8)
        bytes.append(contentsOf: HTTPWire.crlf)
        try HTTPWire.appendFields(headers, to: &bytes)
        if bodyAllowed { HTTPWire.appendField("Content-Length", String(body.count), to: &bytes) }
        if !keepAlive { HTTPWire.appendField("Connection", "close", to: &bytes) }
        bytes.append(contentsOf: HTTPWire.crlf)
        if includeBody && bodyAllowed { bytes.append(contentsOf: body) }
        return bytes
    }

    /// A short plain-text error response whose body is `message` and a newline.
    public static func plainText(status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: HTTPHeaders([("Content-Type", "text/plain; charset=utf-8")]),
            body: Array((message + "\n").utf8))
    }
}

extension HTTPRequest {
    /// The bytes of this request. Callers set `Host` (and `Connection: close` if they want it);
    /// Content-Length is added for any body and for POST/PUT/PATCH without one.
    public func serialized() throws(HTTPError) -> [UInt8] {
        guard HTTPSyntax.isToken(method.utf8) else { throw .malformed("invalid method") }
        guard !target.isEmpty, target.utf8.allSatisfy(HTTPSyntax.isTargetByte) else {
            throw .malformed("invalid request target")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + target.utf8.count + headers.fields.count * 40 + body.count)
        bytes.append(contentsOf: "\(method) \(target) HTTP/1.1\r\n".utf8)
        let keepConnection = headers.fields.filter { HTTPWire.sameName($0.name, "connection") }
        try HTTPWire.appendFields(headers, to: &bytes)
        for field in keepConnection { HTTPWire.appendField(field.name, field.value, to: &bytes) }
        if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) {
            HTTPWire.appendField("Content-Length", String(body.count), to: &bytes)
        }
        bytes.append(contentsOf: HTTPWire.crlf)
        bytes.append(contentsOf: body)
        return bytes
    }
}

/// Field serialization shared by requests and responses.
enum HTTPWire {
    static let crlf: [UInt8] = [HTTPSyntax.cr, HTTPSyntax.lf]

    /// Appends the caller's fields, validated, minus the framing fields the serializer owns.
    static func appendFields(_ headers: HTTPHeaders, to bytes: inout [UInt8]) throws(HTTPError) {
        for field in headers.fields {
            guard HTTPSyntax.isToken(field.name.utf8) else { throw .malformed("invalid header field name") }
            guard field.value.utf8.allSatisfy(HTTPSyntax.isFieldValueByte) else {
                throw .malformed("control character in the value of header field \(field.name)")
            }
            if isFramingField(field.name) { continue }
            appendField(field.name, field.value, to: &bytes)
        }
    }

    static func appendField(_ name: String, _ value: String, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: name.utf8)
        bytes.append(HTTPSyntax.colon)
        bytes.append(HTTPSyntax.space)
        bytes.append(contentsOf: value.utf8)
        bytes.append(contentsOf: crlf)
    }

    private static func isFramingField(_ name: String) -> Bool {
        sameName(name, "content-length") || sameName(name, "transfer-encoding") || sameName(name, "connection")
    }

    static func sameName(_ name: String, _ lowercase: StaticString) -> Bool {
        HTTPSyntax.equalsLowercased(name.utf8, lowercase)
    }
}
