@preconcurrency import Glibc
import SystemCalls

/// One of the user's XDG directories, opened once: files in it are read and replaced through the
/// directory's descriptor (`openat`/`renameat`), so a directory swapped after the checks cannot
/// redirect a write, and a file that is a symbolic link is never followed (O_NOFOLLOW).
final class UserDirectory {
    let path: String
    private let fd: Int32
    static let readLimit = 1 << 20

    /// Opens `path`, creating missing components 0700 (XDG Base Directory spec), and refuses a
    /// directory that another user owns or that others may write to.
    init(_ path: String) throws(DesktopError) {
        self.path = path
        try Self.makeDirectories(path)
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(path: path, action: "open", error: Errno.current.description) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_uid == getuid(), info.st_mode & 0o002 == 0 else {
            close(fd)
            throw .notOwned(path: path)
        }
    }

    deinit { close(fd) }

    func name(_ file: String) -> String { path + "/" + file }

    /// The file's bytes, or nil when it does not exist. `followingLinks`: read through a symbolic
    /// link (reading is harmless; only writes must never follow one).
    func read(_ file: String, followingLinks: Bool = false) throws(DesktopError) -> [UInt8]? {
        let fileFD = openat(fd, file, O_RDONLY | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        if fileFD < 0, errno == ENOENT { return nil }
        if fileFD < 0, errno == ELOOP { throw .io(path: name(file), action: "read", error: "it is a symbolic link") }
        guard fileFD >= 0 else { throw .io(path: name(file), action: "read", error: Errno.current.description) }
        defer { close(fileFD) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while bytes.count <= Self.readLimit {
            let count = SystemCall.retryingInterrupts { Glibc.read(fileFD, &buffer, buffer.count) }
            guard count >= 0 else { throw .io(path: name(file), action: "read", error: Errno.current.description) }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
        }
        throw .tooLarge(path: name(file))
    }

    /// Whether `file` is a symbolic link (which `replace` would replace, not follow).
    func isSymlink(_ file: String) -> Bool {
        var info = stat()
        return fstatat(fd, file, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// Replaces `file` atomically: a new file written and fsynced beside it, then renamed over it,
    /// so a reader (the desktop, a crash) sees the old or the new file, never half of one. An
    /// existing regular file keeps its permissions (a 0600 mimeapps.list stays 0600).
    func replace(_ file: String, with bytes: [UInt8]) throws(DesktopError) {
        var info = stat()
        let existing = fstatat(fd, file, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFREG
        let temporary = ".\(file).authctl-\(getpid())"
        unlinkat(fd, temporary, 0)  // left by a crashed run with the same pid
        let fileFD = openat(fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fileFD >= 0 else { throw .io(path: name(temporary), action: "create", error: Errno.current.description) }
        // Explicit mode: the umask applies to open's mode, not to fchmod's.
        let umaskNow = umask(0o022)
        umask(umaskNow)
        fchmod(fileFD, existing ? info.st_mode & 0o777 : 0o644 & ~umaskNow)
        let failure = bytes.withUnsafeBytes { raw in SystemCall.writeAll(raw) { Glibc.write(fileFD, $0.baseAddress, $0.count) } }
        let synced = failure == nil && fsync(fileFD) == 0
        let syncError = Errno.current
        close(fileFD)
        guard synced, renameat(fd, temporary, fd, file) == 0 else {
            let error = failure ?? (synced ? Errno.current : syncError)
            unlinkat(fd, temporary, 0)
            throw .io(path: name(file), action: "write", error: error.description)
        }
        _ = fsync(fd)
    }

    /// Removes `file`; false when it was not there.
    func remove(_ file: String) throws(DesktopError) -> Bool {
        if unlinkat(fd, file, 0) == 0 { return true }
        if errno == ENOENT { return false }
        throw .io(path: name(file), action: "remove", error: Errno.current.description)
    }

    private static func makeDirectories(_ path: String) throws(DesktopError) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw .io(path: prefix, action: "create the directory", error: Errno.current.description)
            }
        }
    }
}
