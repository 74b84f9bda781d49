import Glibc

extension HTTPListener {
    /// The listening socket passed by systemd socket activation, or nil when this process was
    /// not socket-activated.
    ///
    /// Activation applies when `LISTEN_PID` equals `processID` and `LISTEN_FDS` ≥ 1; the socket
    /// is then `firstDescriptor` (systemd's SD_LISTEN_FDS_START, 3). The environment is passed in
    /// (not read here) so the daemon can unset it for children and tests can fake it. The
    /// descriptor must be a listening stream socket, otherwise this throws.
    public static func inherited(
        environment: [String: String], processID: Int32 = getpid(), firstDescriptor: Int32 = 3
    ) throws(HTTPServerError) -> HTTPListener? {
        guard let pidText = environment["LISTEN_PID"], let countText = environment["LISTEN_FDS"] else { return nil }
        guard let pid = Int32(pidText), let count = Int(countText) else {
            throw .invalidActivation("LISTEN_PID/LISTEN_FDS are not numbers")
        }
        guard pid == processID else { return nil }
        guard count >= 1 else { throw .invalidActivation("LISTEN_FDS is \(count); expected at least one socket") }
        let fd = firstDescriptor
        guard Socket.intOption(fd, SOL_SOCKET, SO_TYPE) == Int32(SOCK_STREAM.rawValue) else {
            throw .invalidActivation("descriptor \(fd) is not a stream socket; check ListenStream= in the socket unit")
        }
        guard Socket.intOption(fd, SOL_SOCKET, SO_ACCEPTCONN) == 1 else {
            throw .invalidActivation("descriptor \(fd) is not listening")
        }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return HTTPListener(fd: fd, address: .inherited(fd: fd))
    }
}
