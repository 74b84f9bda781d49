/// Why a message could not be parsed or serialized. Each case maps to the 4xx status a server
/// answers with (`status`) and a one-line reason (`description`) that is safe to send back:
/// it never quotes header values or bodies, only names and limits.
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Syntax error or a framing conflict (smuggling attempt): 400.
    case malformed(String)
    /// The request line (or status line) is longer than the limit: 414.
    case startLineTooLong(limit: Int)
    /// Too many header/trailer bytes or fields: 431.
    case headersTooLarge(String)
    /// The body is larger than the limit: 413.
    case bodyTooLarge(limit: Int)
    /// A transfer coding other than `chunked`: 501.
    case unsupportedTransferCoding(String)
    /// An HTTP version other than 1.0 / 1.1: 505.
    case unsupportedVersion(String)
    /// The peer closed the connection in the middle of a message: 400.
    case truncated

    /// The status code a server answers this error with.
    public var status: Int {
        switch self {
        case .malformed, .truncated: 400
        case .startLineTooLong: 414
        case .headersTooLarge: 431
        case .bodyTooLarge: 413
        case .unsupportedTransferCoding: 501
        case .unsupportedVersion: 505
        }
    }

    public var description: String {
        switch self {
        case .malformed(let why): "malformed HTTP message: \(why)"
        case .startLineTooLong(let limit): "request line longer than \(limit) bytes"
        case .headersTooLarge(let why): "header section too large: \(why)"
        case .bodyTooLarge(let limit): "body larger than \(limit) bytes"
        case .unsupportedTransferCoding(let coding): "unsupported transfer coding '\(coding)' (only chunked)"
        case .unsupportedVersion(let version): "unsupported HTTP version \(version) (use HTTP/1.1)"
        case .truncated: "connection closed in the middle of a message"
        }
    }
}
