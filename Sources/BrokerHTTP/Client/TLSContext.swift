import COpenSSL

/// The client's OpenSSL `SSL_CTX`: TLS 1.2 minimum, peer verification on, the system trust
/// store plus an optional extra CA bundle. Freed in `deinit`.
///
/// `@unchecked Sendable`: the context is configured once in `init` and afterwards only used
/// to create `SSL` objects (`SSL_new`), which OpenSSL documents as safe from several threads.
final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer

    init(caFile: String?) throws(HTTPClientConfigurationError) {
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw HTTPClientConfigurationError("OpenSSL could not create a TLS context (\(OpenSSLReason.take()))")
        }
        self.context = context
        // SSL_CTX_set_min_proto_version is a macro: call the control function it expands to.
        guard SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil) == 1 else {
            throw HTTPClientConfigurationError("OpenSSL refused TLS 1.2 as minimum version (\(OpenSSLReason.take()))")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        // Many servers close without close_notify; message framing (Content-Length, chunked)
        // detects truncation, so treat an unexpected EOF as a plain end of stream.
        let ignoreUnexpectedEOF: UInt64 = 1 << 7  // SSL_OP_IGNORE_UNEXPECTED_EOF (macro, not imported)
        SSL_CTX_set_options(context, ignoreUnexpectedEOF)
        guard SSL_CTX_set_default_verify_paths(context) == 1 else {
            throw HTTPClientConfigurationError("cannot load the system trust store (\(OpenSSLReason.take())); install ca-certificates")
        }
        if let caFile {
            guard SSL_CTX_load_verify_locations(context, caFile, nil) == 1 else {
                throw HTTPClientConfigurationError(
                    "cannot load CA file \(caFile) (\(OpenSSLReason.take())); give a readable PEM file of CA certificates")
            }
        }
    }

    deinit { SSL_CTX_free(context) }
}

/// A configuration the client cannot work with (unreadable CA file, bad proxy URL).
public struct HTTPClientConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// OpenSSL's per-thread error queue reduced to its short reason strings, then cleared.
enum OpenSSLReason {
    /// Every queued error code, oldest first; the queue is left empty.
    static func takeCodes() -> [UInt] {
        var codes: [UInt] = []
        while case let code = ERR_get_error(), code != 0 { codes.append(code) }
        return codes
    }

    static func describe(_ codes: [UInt]) -> String {
        let reasons = codes.compactMap { code in ERR_reason_error_string(code).map { String(cString: $0) } }
        return reasons.isEmpty ? "no detail from OpenSSL" : reasons.joined(separator: ", ")
    }

    static func take() -> String { describe(takeCodes()) }
}
