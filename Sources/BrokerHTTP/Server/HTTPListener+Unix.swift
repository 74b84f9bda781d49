import Glibc

extension HTTPListener {
    /// Listens on a Unix stream socket at `path`.
    ///
    /// The parent directory is created 0700 when missing. The socket is bound, chmod'ed to
    /// `mode` (0600: only our uid may connect), and only then listened on, so nobody can connect
    /// while its mode is looser. A leftover
    /// socket file is removed only if it is a socket and connecting to it is refused; if a
    /// server answers there, this throws `.alreadyRunning`; a non-socket file throws `.notASocket`.
    public static func unix(path: String, mode: mode_t = 0o600, backlog: Int32 = 128) throws(HTTPServerError) -> HTTPListener {
        try createParentDirectory(of: path)
        try removeStaleSocket(at: path)
        let fd = try Socket.make(family: AF_UNIX)
        var listener: HTTPListener?
        do throws(HTTPServerError) {
            let bound = try Socket.withUnixAddress(path) { bind(fd, $0, $1) }
            guard bound == 0 else {
                if errno == EADDRINUSE { throw .alreadyRunning(path) }
                throw Socket.fail("bind", path: path)
            }
            guard let identity = fileIdentity(path) else { throw Socket.fail("lstat", path: path) }
            // From here the listener owns fd and the file: its deinit cleans up on failure.
            listener = HTTPListener(fd: fd, address: .unix(path: path), createdFile: identity)
            guard chmod(path, mode) == 0 else { throw Socket.fail("chmod", path: path) }
            guard listen(fd, backlog) == 0 else { throw Socket.fail("listen", path: path) }
            return listener!
        } catch {
            if listener == nil { close(fd) }
            throw error
        }
    }

    private static func createParentDirectory(of path: String) throws(HTTPServerError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let parent = String(path[..<slash])
        var info = stat()
        if stat(parent, &info) == 0 { return }
        try createParentDirectory(of: parent)
        guard mkdir(parent, 0o700) == 0 || errno == EEXIST else { throw Socket.fail("mkdir", path: parent) }
        // mkdir honours the umask, which can only remove bits; make the mode exact anyway.
        _ = chmod(parent, 0o700)
    }

    /// Removes a leftover socket file at `path` if it is a socket nobody answers on; nothing at
    /// `path` is fine. Throws `.alreadyRunning` when a server answers, `.notASocket` for another file.
    public static func removeStaleSocket(at path: String) throws(HTTPServerError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw Socket.fail("lstat", path: path)
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
        let probe = try Socket.make(family: AF_UNIX)
        defer { close(probe) }
        let connected = try Socket.withUnixAddress(path) { connect(probe, $0, $1) }
        if connected == 0 { throw .alreadyRunning(path) }
        guard errno == ECONNREFUSED else { throw Socket.fail("connect (probing the existing socket)", path: path) }
        guard unlink(path) == 0 || errno == ENOENT else { throw Socket.fail("unlink", path: path) }
    }
}
