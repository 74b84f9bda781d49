import SystemCalls
import WireFormats

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// A connected AF_UNIX stream socket with blocking writes and deadline-bounded reads.
struct UnixConnection {
    private let fd: Int32
    private let path: String

    init(path: String) throws(BrokerClientError) {
        self.path = path
        // The temp-dir fallback (`authbroker-UID`) may have been made by another user: connect
        // through its checked descriptor, so the directory checked is the one used.
        var directory: Int32 = -1
        defer { if directory >= 0 { Glibc.close(directory) } }
        var connectPath = path
        if let (parent, name) = SocketPath.fallbackComponents(of: path, uid: getuid()) {
            switch PrivateDirectory.open(parent, forbidden: 0o077) {
            case .success(let fd):
                directory = fd
                connectPath = PrivateDirectory.path(in: fd, name)
            case .failure(.missing): throw .daemonNotRunning(socket: path, reason: "no socket")
            case .failure(let problem): throw .protocolError("refusing the socket directory: \(problem)")
            }
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard connectPath.utf8.count < capacity else {
            throw .socketPathTooLong(socket: path, limit: capacity - 1)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: connectPath.utf8)
            raw[connectPath.utf8.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .protocolError("socket(): \(Errno.current)") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            Glibc.close(fd)
            let reason = code == ENOENT ? "no socket" : code == ECONNREFUSED ? "nothing listening" : Errno(code).description
            throw .daemonNotRunning(socket: path, reason: reason)
        }
        self.fd = fd
        if let problem = DaemonIdentity.problem(fd: fd, socketPath: path) {
            Glibc.close(fd)
            throw .protocolError(problem)
        }
    }

    func close() { _ = Glibc.close(fd) }

    /// Sends the request. A daemon that refuses our uid answers 403 at accept and closes at once,
    /// so a send can fail with EPIPE after its answer arrived: stop sending and let
    /// `readResponse` read that answer (or report the close).
    func sendAll(_ bytes: [UInt8]) throws(BrokerClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                SystemCall.retryingInterrupts { send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL)) }
            }
            if sent < 0 {
                if errno == EPIPE || errno == ECONNRESET { return }
                throw .daemonNotRunning(socket: path, reason: "connection closed: \(Errno.current)")
            }
            offset += sent
        }
    }

    func readResponse(to method: String, deadline: Double) throws(BrokerClientError) -> HTTPResponse {
        var parser = HTTPResponseParser()
        // Uninitialized: the answer (a token, usually one recv) overwrites what it uses.
        var buffer = [UInt8](unsafeUninitializedCapacity: 16_384) { _, count in count = 16_384 }
        while true {
            do {
                if let response = try parser.nextResponse(to: method) { return response }
            } catch {
                throw .protocolError("malformed answer from the daemon: \(error)")
            }
            let remaining = deadline - Monotonic.now()
            guard remaining > 0 else { throw .timeout(socket: path) }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining * 1000, 60_000)) + 1)
            // Timed out or interrupted: the loop rechecks the deadline.
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { raw in
                SystemCall.retryingInterrupts { recv(fd, raw.baseAddress, raw.count, 0) }
            }
            if count < 0 { throw .protocolError("reading from the daemon: \(Errno.current)") }
            if count == 0 {
                parser.finishInput()
                do {
                    if let response = try parser.nextResponse(to: method) { return response }
                } catch {
                    throw .protocolError("malformed answer from the daemon: \(error)")
                }
                throw .protocolError("the daemon closed the connection without answering")
            }
            parser.append(buffer[0..<count])
        }
    }
}

/// Seconds on the monotonic clock, for deadlines.
enum Monotonic {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// Checks who answers on the socket before anything is sent to it (account add sends a client secret).
///
/// In a shared temp directory another user could create our default socket path first. So the
/// daemon must run as us or root — or, for a system-wide daemon, as the owner of a socket directory
/// that sits in a root-owned, non-writable directory such as /run (nobody else can create that).
enum DaemonIdentity {
    struct PeerCredentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    static func problem(fd: Int32, socketPath: String) -> String? {
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
            return "cannot check who listens on \(socketPath): \(Errno.current)"
        }
        let me = getuid()
        if credentials.uid == me || credentials.uid == 0 || isSystemSocket(socketPath, owner: credentials.uid) {
            return nil
        }
        return
            "refusing to use \(socketPath): the process listening there runs as uid \(credentials.uid), not as you (uid \(me)); remove it or pass --socket"
    }

    /// The socket's directory belongs to `owner` and nobody else may write it, nor any of its
    /// ancestors that also belong to `owner` (a restricted socket sits in
    /// `/run/authbroker/restricted/UID/`); the first ancestor that does not is root's and
    /// not writable by group or other (`/run`).
    static func isSystemSocket(_ path: String, owner: UInt32) -> Bool {
        var directory = parent(of: path)
        var info = stat()
        guard lstat(directory, &info) == 0, info.st_uid == owner, info.st_mode & 0o022 == 0 else { return false }
        while directory.hasPrefix("/"), directory != "/" {
            directory = parent(of: directory)
            guard lstat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_mode & 0o022 == 0 else {
                return false
            }
            if info.st_uid == 0 { return true }
            guard info.st_uid == owner else { return false }
        }
        return false
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
