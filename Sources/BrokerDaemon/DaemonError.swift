import BrokerHTTP

/// Why the daemon could not start. Each description says what to do.
public enum DaemonError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another daemon answers on the socket.
    case alreadyRunning(socket: String)
    /// The socket's directory is not private (foreign owner, loose mode, not a directory).
    case unsafeSocketDirectory(String)
    /// The state directory cannot be created or is not a directory.
    case stateDirectory(path: String, reason: String)
    /// Another daemon (on another socket) already uses this state directory and its token database.
    case stateInUse(path: String, pid: Int32?)
    /// A process-hardening call failed.
    case hardening(String)
    /// The socket could not be bound or the inherited one is unusable.
    case listener(HTTPServerError)
    /// The outbound HTTPS client could not be set up (CA file, proxy).
    case transport(String)

    public var description: String {
        switch self {
        case .alreadyRunning(let socket):
            "authbrokerd is already running on \(socket): stop it first (systemctl --user stop authbrokerd) "
                + "or give this one another --socket"
        case .unsafeSocketDirectory(let why):
            "refusing the socket directory: \(why)"
        case .stateDirectory(let path, let reason):
            "cannot use the state directory '\(path)': \(reason); fix it or pass --state-dir"
        case .stateInUse(let path, let pid):
            "another authbrokerd\(pid.map { " (pid \($0))" } ?? "") already uses the state directory '\(path)': "
                + "two daemons on one token database would race to refresh; stop it or pass another --state-dir"
        case .hardening(let why):
            "cannot harden the process: \(why)"
        case .listener(let error):
            "\(error)"
        case .transport(let why):
            "cannot set up outbound HTTPS: \(why)"
        }
    }
}
