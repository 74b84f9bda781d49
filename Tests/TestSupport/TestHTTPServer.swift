import BrokerHTTP
import COpenSSL
import Foundation
import Synchronization

/// A small HTTP/1.1 server on 127.0.0.1 for client tests, optionally over TLS (libssl) with a
/// chosen certificate and protocol range. One thread per connection; it keeps connections
/// alive, counts them, records requests, and stops by itself when its lifetime ends.
public final class TestHTTPServer: Sendable {
    /// TLS settings; protocol versions are OpenSSL constants such as `TLS1_VERSION` (0 = default).
    public struct TLSSettings: Sendable {
        public var certificate: CertificatePair
        public var minVersion: Int32
        public var maxVersion: Int32
        /// e.g. "DEFAULT:@SECLEVEL=0", needed on OpenSSL 3 for a TLS 1.0/1.1-only server.
        public var cipherList: String?

        public init(certificate: CertificatePair, minVersion: Int32 = 0, maxVersion: Int32 = 0, cipherList: String? = nil) {
            self.certificate = certificate
            self.minVersion = minVersion
            self.maxVersion = maxVersion
            self.cipherList = cipherList
        }

        /// A server that speaks only TLS 1.0 and 1.1 (which OpenSSL 3 allows only at security level 0).
        public static func legacyOnly(certificate: CertificatePair) -> TLSSettings {
            TLSSettings(
                certificate: certificate, minVersion: TLS1_VERSION, maxVersion: TLS1_1_VERSION, cipherList: "DEFAULT:@SECLEVEL=0")
        }
    }

    /// What the server does with one request.
    public enum Reply: Sendable {
        /// A response serialized by the codec; `close` adds `Connection: close` and hangs up.
        case respond(HTTPResponse, close: Bool = false)
        /// Exactly these bytes (chunked bodies, broken framing), then keep reading.
        case raw([UInt8])
        /// No answer at all: the connection stays open and silent until the server stops.
        case silence
        /// Close the connection without answering (a server dropping an idle keep-alive connection).
        case hangUp
    }

    private let listener: LoopbackListener
    private let context: ServerTLSContext?
    private let handler: @Sendable (HTTPRequest) -> Reply
    private let state = Mutex<(connections: Int, requests: [HTTPRequest], serverNames: [String?])>((0, [], []))

    public var port: Int { listener.port }
    /// Connections accepted so far (TLS or not, handshake succeeded or not).
    public var connectionCount: Int { state.withLock { $0.connections } }
    public var requests: [HTTPRequest] { state.withLock { $0.requests } }
    /// The SNI host name of each completed TLS handshake, in order (nil: the client sent none).
    public var serverNames: [String?] { state.withLock { $0.serverNames } }

    public init(
        tls: TLSSettings? = nil, lifetime: Duration = .seconds(30),
        handler: @escaping @Sendable (HTTPRequest) -> Reply
    ) throws {
        listener = try LoopbackListener(lifetime: lifetime)
        context = try tls.map(ServerTLSContext.init)
        self.handler = handler
        listener.acceptLoop { [self] client in serve(client) }
    }

    public func stop() { listener.stop() }

    /// A server that answers every request with `200 OK` and `body`.
    public static func answering(_ body: String, tls: TLSSettings? = nil) throws -> TestHTTPServer {
        try TestHTTPServer(tls: tls) { _ in .respond(HTTPResponse(status: 200, body: Array(body.utf8))) }
    }

    private func serve(_ fd: Int32) {
        state.withLock { $0.connections += 1 }
        defer { close(fd) }
        guard let stream = ServerStream(fd: fd, context: context) else { return }
        if context != nil { state.withLock { $0.serverNames.append(stream.serverName) } }
        var parser = HTTPRequestParser()
        while !listener.isStopped {
            guard let request = Self.nextRequest(&parser, from: stream) else { return }
            state.withLock { $0.requests.append(request) }
            switch handler(request) {
            case .respond(let response, let close):
                let bytes = (try? response.serialized(keepAlive: !close, includeBody: request.method != "HEAD")) ?? []
                guard stream.write(bytes), !close else { return }
            case .raw(let bytes):
                guard stream.write(bytes) else { return }
            case .silence:
                while !listener.isStopped { usleep(20_000) }
                return
            case .hangUp:
                return
            }
        }
    }
}

extension TestHTTPServer {
    /// The next request parsed by the codec, or nil when the client left or sent garbage.
    fileprivate static func nextRequest(_ parser: inout HTTPRequestParser, from stream: ServerStream) -> HTTPRequest? {
        while true {
            do {
                if let request = try parser.nextRequest() { return request }
            } catch {
                return nil
            }
            guard let bytes = stream.read() else { return nil }
            parser.append(bytes)
        }
    }
}

/// The server's SSL_CTX, freed in deinit. `@unchecked Sendable`: configured once in init,
/// then only used by `SSL_new`, which OpenSSL allows from several threads.
final class ServerTLSContext: @unchecked Sendable {
    let context: OpaquePointer

    init(_ settings: TestHTTPServer.TLSSettings) throws {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw CertificateGenerationError(message: "SSL_CTX_new") }
        self.context = context
        var ok = SSL_CTX_use_certificate_chain_file(context, settings.certificate.certificateFile) == 1
        ok = ok && SSL_CTX_use_PrivateKey_file(context, settings.certificate.keyFile, SSL_FILETYPE_PEM) == 1
        // The *_proto_version setters are macros over SSL_CTX_ctrl.
        ok = ok && SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(settings.minVersion), nil) == 1
        ok = ok && SSL_CTX_ctrl(context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(settings.maxVersion), nil) == 1
        if let ciphers = settings.cipherList { ok = ok && SSL_CTX_set_cipher_list(context, ciphers) == 1 }
        guard ok else { throw CertificateGenerationError(message: "cannot configure the test TLS server") }
    }

    deinit { SSL_CTX_free(context) }
}

/// A blocking server connection, plain or TLS (the SSL is freed in deinit).
final class ServerStream {
    private let fd: Int32
    private let ssl: OpaquePointer?
    /// The host name the client sent in SNI, read after the handshake.
    let serverName: String?

    init?(fd: Int32, context: ServerTLSContext?) {
        self.fd = fd
        guard let context else {
            ssl = nil
            serverName = nil
            return
        }
        guard let ssl = SSL_new(context.context) else { return nil }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        if SSL_accept(ssl) != 1 {
            ERR_clear_error()
            return nil
        }
        serverName = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
    }

    deinit { if let ssl { SSL_free(ssl) } }

    /// Some bytes, or nil at end of stream / error / receive timeout.
    func read() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let count: Int =
            if let ssl { Int(SSL_read(ssl, &buffer, Int32(buffer.count))) } else { recv(fd, &buffer, buffer.count, 0) }
        return count > 0 ? Array(buffer[..<count]) : nil
    }

    func write(_ bytes: [UInt8]) -> Bool {
        guard let ssl else { return LoopbackListener.sendAll(fd, bytes) }
        return bytes.isEmpty || SSL_write(ssl, bytes, Int32(bytes.count)) == Int32(bytes.count)
    }
}
