import COpenSSL
import Synchronization

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
            throw HTTPClientConfigurationError(
                "cannot load the system trust store (\(OpenSSLReason.take())); install ca-certificates")
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

/// An `HTTPClient`'s TLS context, built when first needed. Loading the system trust store parses
/// every CA certificate in it — tens of milliseconds of CPU, seconds on a loaded machine — which
/// must not run in an initializer that async code calls on the cooperative pool (measured: two
/// test harnesses building clients held both pool threads, and every other task in the process
/// stalled for 20 s). `get` runs on the request's own blocking thread instead, once.
final class LazyTLSContext: Sendable {
    private let caFile: String?
    private let built: Mutex<TLSContext?>

    /// Builds at once when `caFile` is given, so a wrong file fails where it is configured.
    init(caFile: String?) throws(HTTPClientConfigurationError) {
        self.caFile = caFile
        built = Mutex(caFile == nil ? nil : try TLSContext(caFile: caFile))
    }

    var isBuilt: Bool { built.withLock { $0 != nil } }

    /// The context, built on first use; a failure (no system trust store) fails this connection
    /// to `host` and is tried again on the next.
    func get(for host: String) throws(HTTPClientError) -> TLSContext {
        let result: Result<TLSContext, HTTPClientConfigurationError> = built.withLock { built in
            if let built { return .success(built) }
            do throws(HTTPClientConfigurationError) {
                let context = try TLSContext(caFile: caFile)
                built = context
                return .success(context)
            } catch {
                return .failure(error)
            }
        }
        do { return try result.get() } catch { throw .tls(.other(host: host, detail: error.description)) }
    }
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
