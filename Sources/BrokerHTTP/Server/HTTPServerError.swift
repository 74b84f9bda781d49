import SystemCalls

/// Why a server could not start. The description says what to do.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed; `errno` is kept for diagnosis.
    case systemCall(String, errno: Int32, path: String?)
    /// The Unix socket path does not fit in sockaddr_un (108 bytes).
    case socketPathTooLong(String)
    /// Something answers on the socket path: another instance is running.
    case alreadyRunning(String)
    /// The path exists and is not a socket: refuse to delete it.
    case notASocket(String)
    /// The listen address is not a loopback IP literal.
    case invalidAddress(String)
    /// The socket-activation environment or descriptor is unusable.
    case invalidActivation(String)

    public var description: String {
        switch self {
        case .systemCall(let call, let code, let path):
            "\(call) failed\(path.map { " for \($0)" } ?? ""): \(Self.errorText(code))"
        case .socketPathTooLong(let path):
            "socket path \(path) is longer than 107 bytes; choose a shorter runtime directory"
        case .alreadyRunning(let path):
            "another server is already listening on \(path); stop it first (or use its socket)"
        case .notASocket(let path):
            "\(path) exists and is not a socket; remove it or choose another socket path"
        case .invalidAddress(let host):
            "cannot listen on \(host): use 127.0.0.1 or ::1"
        case .invalidActivation(let why):
            "socket activation: \(why)"
        }
    }

    private static func errorText(_ code: Int32) -> String {
        Errno(code).descriptionWithCode
    }
}

#if canImport(Glibc)
    import Glibc
#endif
