import COpenSSL
import Glibc
import SystemCalls
import WireFormats

/// One TLS connection (`SSL*`) over a `ClientSocket`, freed in `deinit`.
///
/// The socket is non-blocking: every OpenSSL call that wants to read or write waits in
/// `poll` bounded by the caller's deadline, so a silent server cannot hang a thread.
final class TLSSession {
    private let ssl: OpaquePointer
    private let socket: ClientSocket
    private let host: String

    init(context: TLSContext, socket: ClientSocket, host: String) throws(HTTPClientError) {
        guard let ssl = SSL_new(context.context) else {
            throw .tls(.other(host: host, detail: "OpenSSL could not create a session (\(OpenSSLReason.take()))"))
        }
        self.ssl = ssl
        self.socket = socket
        self.host = host
        SSL_set_fd(ssl, socket.fd)
        try configureIdentity()
    }

    deinit { SSL_free(ssl) }

    /// SNI and the name the certificate must carry; IP literals are checked as addresses
    /// and get no SNI (RFC 6066 §3 forbids literals there).
    private func configureIdentity() throws(HTTPClientError) {
        let accepted: Bool
        if Host(address: host) != nil {
            accepted = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1
        } else {
            // SSL_set_tlsext_host_name is a macro over SSL_ctrl; OpenSSL copies the name.
            let sni = host.withCString { name in
                SSL_ctrl(
                    ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name), UnsafeMutableRawPointer(mutating: name))
            }
            accepted = sni == 1 && SSL_set1_host(ssl, host) == 1
        }
        if !accepted {
            throw .tls(
                .other(host: host, detail: "cannot verify certificates for this name (\(OpenSSLReason.take())); check the URL"))
        }
    }

    func handshake(until deadline: Deadline) throws(HTTPClientError) {
        let result = try drive(until: deadline) { SSL_connect(ssl) }
        if result <= 0 {
            throw .tls(
                .other(
                    host: host,
                    detail: "the server closed the connection during the handshake; check that it speaks TLS on that port"))
        }
    }

    /// Whether the verified chain (after a successful handshake) carries one of `pins`.
    func verifiedChainMatches(_ pins: PublicKeyPins) -> Bool { pins.match(verifiedChainOf: ssl) }

    /// Writes all of `bytes`.
    func write(_ bytes: [UInt8], until deadline: Deadline) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let written = try drive(until: deadline) {
                bytes.withUnsafeBytes { raw in SSL_write(ssl, raw.baseAddress! + offset, Int32(raw.count - offset)) }
            }
            guard written > 0 else {
                throw .protocolError("the server closed the TLS connection while we were sending; try again")
            }
            offset += Int(written)
        }
    }

    /// Reads decrypted bytes into `buffer`; returns 0 at end of stream.
    func read(into buffer: inout [UInt8], until deadline: Deadline) throws(HTTPClientError) -> Int {
        let count = Int32(buffer.count)
        let result = try drive(until: deadline) {
            buffer.withUnsafeMutableBytes { raw in SSL_read(ssl, raw.baseAddress!, count) }
        }
        return Int(max(0, result))
    }

    /// True when OpenSSL holds decrypted bytes nobody asked for (an idle connection must not).
    var hasBufferedData: Bool { SSL_pending(ssl) > 0 }

    /// Runs an OpenSSL I/O call until it completes, waiting in poll for WANT_READ / WANT_WRITE.
    /// Returns the call's positive result, or 0 when the peer ended the stream.
    private func drive(until deadline: Deadline, _ operation: () -> Int32) throws(HTTPClientError) -> Int32 {
        while true {
            ERR_clear_error()
            let result = operation()
            if result > 0 { return result }
            let failure = SSL_get_error(ssl, result)
            switch failure {
            case SSL_ERROR_WANT_READ: try socket.wait(for: Int16(POLLIN), until: deadline)
            case SSL_ERROR_WANT_WRITE: try socket.wait(for: Int16(POLLOUT), until: deadline)
            case SSL_ERROR_ZERO_RETURN: return 0
            case SSL_ERROR_SYSCALL where errno == 0 || errno == ECONNRESET || errno == EPIPE:
                return 0
            default: throw classify(failure)
            }
        }
    }

    /// Turns a failed TLS step into the most useful `TLSFailure`: the certificate verification
    /// result first, then the handshake alerts.
    private func classify(_ failure: Int32) -> HTTPClientError {
        let verify = Int32(SSL_get_verify_result(ssl))
        if verify != X509_V_OK { return .tls(TLSFailure(verifyResult: verify, host: host)) }
        let codes = OpenSSLReason.takeCodes()
        let versionReasons: Set<Int32> = [
            SSL_R_TLSV1_ALERT_PROTOCOL_VERSION, SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_NO_PROTOCOLS_AVAILABLE,
            SSL_R_WRONG_VERSION_NUMBER,
        ]
        if codes.contains(where: { versionReasons.contains(ERR_GET_REASON($0)) }) {
            return .tls(.protocolVersion(host: host))
        }
        let detail = failure == SSL_ERROR_SYSCALL ? Errno.current.description : OpenSSLReason.describe(codes)
        return .tls(.other(host: host, detail: "\(detail); check that the server speaks TLS 1.2+ on that port"))
    }
}

extension TLSFailure {
    /// Maps an X509_V_ERR_* verification result to the failure a user can act on.
    init(verifyResult: Int32, host: String) {
        let text = String(cString: X509_verify_cert_error_string(Int(verifyResult)))
        switch verifyResult {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            self = .certificateExpired(host: host)
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            self = .hostnameMismatch(host: host)
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            self = .untrustedIssuer(host: host, detail: text)
        default:
            self = .other(host: host, detail: "certificate rejected: \(text)")
        }
    }
}
