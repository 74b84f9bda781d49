import Glibc

/// A listening socket: a Unix socket, a loopback TCP port, or one inherited from systemd.
///
/// Owns the descriptor (closed in deinit) and, for a Unix socket it created, the socket file
/// (removed on close if it is still the same file).
public final class HTTPListener: Sendable {
    /// What the listener is bound to.
    public enum Address: Sendable, Equatable {
        case unix(path: String)
        case tcp(host: String, port: Int)
        case inherited(fd: Int32)
    }

    let fd: Int32
    public let address: Address
    /// Device and inode of the socket file we created, to remove only our own file.
    private let createdFile: (dev: UInt64, ino: UInt64)?

    init(fd: Int32, address: Address, createdFile: (dev: UInt64, ino: UInt64)? = nil) {
        self.fd = fd
        self.address = address
        self.createdFile = createdFile
    }

    /// The bound TCP port (the real one when 0 was asked for), nil for Unix sockets.
    public var port: Int? {
        if case .tcp(_, let port) = address { return port }
        return nil
    }

    /// True for Unix-socket listeners (their peers carry credentials).
    var isUnix: Bool {
        switch address {
        case .unix: true
        case .tcp: false
        case .inherited: Socket.intOption(fd, SOL_SOCKET, SO_DOMAIN) == AF_UNIX
        }
    }

    /// Wakes a thread blocked in accept(): close() would not (SWIFT-LINUX-NOTES).
    func shutdownListening() {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    deinit {
        if case .unix(let path) = address, let created = createdFile, let current = Self.fileIdentity(path),
            current == created
        {
            unlink(path)
        }
        close(fd)
    }

    static func fileIdentity(_ path: String) -> (dev: UInt64, ino: UInt64)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}
