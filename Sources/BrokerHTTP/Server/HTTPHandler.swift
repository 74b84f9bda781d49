import WireFormats

/// Answers requests for `HTTPServer`. Both servers (Unix socket API, loopback redirect listener)
/// use it.
///
/// `handle` is async so handlers can call actors; the server runs it from the connection's own
/// thread through a Task and waits for the answer. Hot routes that need no await (serving a cached
/// token) can implement `handleImmediately` and stay on the connection thread: returning nil
/// falls back to `handle`.
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse
    /// A synchronous answer, or nil to use `handle`. Must not block for long: it runs on the
    /// connection thread, never on the cooperative pool.
    func handleImmediately(_ request: HTTPRequest, connection: ConnectionInfo) -> HTTPResponse?
    /// Checked once per connection on the accept thread, before it counts against any cap: a
    /// response means "refuse this peer" — it is sent without blocking and the connection closed
    /// at once (a uid that may not use the socket API cannot hold a slot). Must not block.
    func refusal(for connection: ConnectionInfo) -> HTTPResponse?
    /// Called on the connection's thread once it is admitted, before its first request is read
    /// (the socket API records who connected in `connection.memo` here). Must not block for long.
    func connectionStarted(_ connection: ConnectionInfo)
}

extension HTTPHandler {
    public func handleImmediately(_ request: HTTPRequest, connection: ConnectionInfo) -> HTTPResponse? { nil }
    public func refusal(for connection: ConnectionInfo) -> HTTPResponse? { nil }
    public func connectionStarted(_ connection: ConnectionInfo) {}
}

/// An `HTTPHandler` made of a closure, for small servers and tests.
public struct HTTPClosureHandler: HTTPHandler {
    private let body: @Sendable (HTTPRequest, ConnectionInfo) async -> HTTPResponse

    public init(_ body: @escaping @Sendable (HTTPRequest, ConnectionInfo) async -> HTTPResponse) {
        self.body = body
    }

    public func handle(_ request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        await body(request, connection)
    }
}

/// Who is on the other end of a connection.
public struct ConnectionInfo: Sendable, Equatable {
    public enum Peer: Sendable, Equatable {
        /// A Unix-socket peer with its kernel-reported credentials (SO_PEERCRED).
        case unix(PeerCredentials)
        /// A TCP peer (always loopback here).
        case tcp(address: String, port: Int)
    }

    /// Unique per server, increasing.
    public let id: UInt64
    public let peer: Peer
    /// What the handler keeps for this connection's later requests (one per connection).
    public let memo: ConnectionMemo

    public init(id: UInt64, peer: Peer, memo: ConnectionMemo = ConnectionMemo()) {
        self.id = id
        self.peer = peer
        self.memo = memo
    }

    /// The same connection: id and peer (the memo is a cache, not part of the identity).
    public static func == (lhs: ConnectionInfo, rhs: ConnectionInfo) -> Bool {
        lhs.id == rhs.id && lhs.peer == rhs.peer
    }

    /// The Unix peer's credentials, nil for TCP.
    public var credentials: PeerCredentials? {
        if case .unix(let credentials) = peer { return credentials }
        return nil
    }
}

/// Process, user and group of a Unix-socket peer at connect time, from the kernel (not forgeable).
public struct PeerCredentials: Sendable, Equatable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32

    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}
