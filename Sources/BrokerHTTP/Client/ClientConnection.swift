import Glibc

/// Where a pooled connection leads: only a request for the same key may reuse it.
struct ConnectionKey: Hashable, Sendable {
    var scheme: ClientURL.Scheme
    var host: String
    var port: Int
    var proxy: ProxyEndpoint?
    /// A connection checked against other pins (or none) is not one checked against these.
    var pins: PublicKeyPins = .none
}

/// One client connection (TCP, optionally through a proxy tunnel, optionally TLS) with the
/// bytes read past the end of the last response.
///
/// `@unchecked Sendable`: a connection is used by exactly one request thread at a time; it
/// moves between threads only through `ConnectionPool`, whose mutex orders the hand-over.
final class ClientConnection: @unchecked Sendable {
    let key: ConnectionKey
    private let socket: ClientSocket
    private var tls: TLSSession?
    /// Monotonic time the connection went back to the pool.
    var idleSince: UInt64 = 0
    private var readBuffer = [UInt8](repeating: 0, count: 16 * 1024)

    init(key: ConnectionKey, socket: ClientSocket) {
        self.key = key
        self.socket = socket
    }

    /// Starts TLS on the (possibly tunnelled) socket, bounded by `deadline`.
    /// With `key.pins`, the verified chain must also carry one of them.
    func startTLS(context: TLSContext, host: String, until deadline: Deadline) throws(HTTPClientError) {
        let session = try TLSSession(context: context, socket: socket, host: host)
        try session.handshake(until: deadline)
        if !key.pins.isEmpty, !session.verifiedChainMatches(key.pins) { throw .tls(.pinMismatch(host: host)) }
        tls = session
    }

    func write(_ bytes: [UInt8], until deadline: Deadline) throws(HTTPClientError) {
        if let tls { try tls.write(bytes, until: deadline) } else { try socket.send(bytes, until: deadline) }
    }

    /// The next bytes from the peer; empty at end of stream.
    func read(until deadline: Deadline) throws(HTTPClientError) -> ArraySlice<UInt8> {
        let count =
            if let tls {
                try tls.read(into: &readBuffer, until: deadline)
            } else {
                try socket.receive(into: &readBuffer, until: deadline)
            }
        return readBuffer[..<count]
    }

    /// An idle connection is reusable only when nothing at all is waiting to be read: pending
    /// bytes mean the server closed it (EOF) or misbehaved.
    var isReusable: Bool { socket.isIdleAndOpen && !(tls?.hasBufferedData ?? false) }
}
