import WireFormats

/// An outbound request to an absolute URL, e.g. a token endpoint.
public struct HTTPClientRequest: Sendable, Equatable {
    public var method: String
    /// Absolute URL: `https://host[:port]/path?query`, or `http://` for loopback hosts only.
    public var url: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// For https: keys one of which the verified certificate chain must carry (an account's
    /// `--pin-sha256`); a mismatch is `TLSFailure.pinMismatch`. Plain loopback http has no chain.
    public var pins: PublicKeyPins
    /// For an open-ended answer (an event stream): read it for at most this long, or until a
    /// second after the first body bytes, then close the connection and return what
    /// came (the head and the body so far). Nil: the whole response.
    public var streamWindow: Duration?

    public init(
        method: String = "GET", url: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
        pins: PublicKeyPins = .none, streamWindow: Duration? = nil
    ) {
        self.streamWindow = streamWindow
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.pins = pins
    }
}

/// Something that can carry an `HTTPClientRequest` and bring back the response.
///
/// `HTTPClient` (OpenSSL) is the real one; tests of the OIDC engine may pass a fake.
/// Redirects are never followed: a 3xx comes back to the caller as it is.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPResponse
}

/// Why an outbound request failed, classified so callers can decide between "retry later"
/// (network, timeout) and "tell the user" (TLS, protocol).
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL could not be used (bad syntax, or plain http to a non-loopback host).
    case invalidURL(String)
    /// The host name did not resolve.
    case dnsFailure(host: String, reason: String)
    /// TCP connect failed (refused, unreachable).
    case connectFailure(host: String, port: Int, reason: String)
    /// The connect or total deadline passed.
    case timeout(String)
    /// The TLS handshake or certificate verification failed.
    case tls(TLSFailure)
    /// The peer spoke something that is not valid HTTP/1.1, or closed mid-message.
    case protocolError(String)
    /// The response body exceeded the configured cap.
    case tooLarge(limit: Int)

    public var description: String {
        switch self {
        case .invalidURL(let why): "invalid URL: \(why)"
        case .dnsFailure(let host, let reason): "cannot resolve \(host): \(reason)"
        case .connectFailure(let host, let port, let reason): "cannot connect to \(host):\(port): \(reason)"
        case .timeout(let what): "timed out: \(what)"
        case .tls(let failure): "TLS failure: \(failure)"
        case .protocolError(let why): "HTTP protocol error: \(why)"
        case .tooLarge(let limit): "response larger than \(limit) bytes"
        }
    }

    /// True for failures that may pass by themselves (network, timeout), false for ones that need a person.
    public var isTransient: Bool {
        switch self {
        case .dnsFailure, .connectFailure, .timeout, .protocolError: true
        case .invalidURL, .tls, .tooLarge: false
        }
    }
}

/// A TLS failure with the certificate verification reason when there is one.
public enum TLSFailure: Sendable, Equatable, CustomStringConvertible {
    case certificateExpired(host: String)
    case hostnameMismatch(host: String)
    case untrustedIssuer(host: String, detail: String)
    case protocolVersion(host: String)
    case other(host: String, detail: String)
    /// Verification passed, but no certificate of the chain carries a pinned key.
    case pinMismatch(host: String)

    public var description: String {
        switch self {
        case .certificateExpired(let host):
            "the certificate of \(host) has expired"
        case .hostnameMismatch(let host):
            "the certificate presented by \(host) is not valid for that name"
        case .untrustedIssuer(let host, let detail):
            "the certificate of \(host) is not signed by a trusted CA (\(detail)); pass --ca-file if it uses a private CA"
        case .protocolVersion(let host):
            "\(host) does not offer TLS 1.2 or newer"
        case .other(let host, let detail):
            "TLS with \(host) failed: \(detail)"
        case .pinMismatch(let host):
            "the certificate chain of \(host) carries none of the account's pinned keys (--pin-sha256): "
                + "the provider changed its keys or someone is intercepting; pin the new key once you have checked it"
        }
    }
}
