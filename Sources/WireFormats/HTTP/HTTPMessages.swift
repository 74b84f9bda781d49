/// An HTTP/1.1 request as parsed by the servers or sent by the client.
public struct HTTPRequest: Sendable, Equatable {
    /// The method token, e.g. "GET", "POST" (case-sensitive, RFC 9110 §9.1).
    public var method: String
    /// The request target as sent: origin-form path plus optional query ("/v1/token?min_ttl=30").
    public var target: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The protocol version from the request line (HTTP/1.1 unless the peer said HTTP/1.0).
    public var version: HTTPVersion

    public init(
        method: String, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        version: HTTPVersion = .http11
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.version = version
    }

    /// The path part of `target`, before any `?`.
    public var path: Substring {
        // Found in the UTF-8 view: a Character search (or a split into an array) cost more than
        // the rest of routing on the token route (docs/BENCHMARKS-archive.md,
        // "Token route: the remaining daemon CPU").
        guard let mark = queryMark else { return target[...] }
        return target[..<mark]
    }

    /// The raw query part of `target` after the first `?`, if any.
    public var query: Substring? {
        guard let mark = queryMark else { return nil }
        return target[target.utf8.index(after: mark)...]
    }

    private var queryMark: String.Index? { target.utf8.firstIndex(of: UInt8(ascii: "?")) }
}

/// An HTTP/1.1 response as produced by the servers or received by the client.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The protocol version from the status line (what we send is always HTTP/1.1).
    public var version: HTTPVersion

    public init(
        status: Int, reason: String? = nil, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        version: HTTPVersion = .http11
    ) {
        self.status = status
        self.reason = reason ?? HTTPResponse.standardReason(for: status)
        self.headers = headers
        self.body = body
        self.version = version
    }

    public static func standardReason(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}

/// An HTTP version from a request or status line. Only 1.0 and 1.1 are spoken here.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    public var major: Int
    public var minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http10 = HTTPVersion(major: 1, minor: 0)
    public static let http11 = HTTPVersion(major: 1, minor: 1)

    public var description: String { "HTTP/\(major).\(minor)" }
}
