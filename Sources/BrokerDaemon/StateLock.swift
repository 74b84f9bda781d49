import SystemCalls

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// An exclusive lock on the state directory, held for the daemon's lifetime.
///
/// Two daemons on one token database (each with its own --socket) would both refresh the same
/// refresh tokens: with rotation and reuse detection the provider then revokes the whole family.
/// The socket check cannot see that case, so the state directory carries `authbrokerd.lock`
/// (flock: released by the kernel when the process dies, even on SIGKILL — never stale).
enum StateLock {
    static let fileName = "authbrokerd.lock"

    /// Takes the lock or throws `stateInUse` naming the pid that holds it. The descriptor is kept
    /// open on purpose (close-on-exec, so hooks do not inherit it) until the process exits.
    @discardableResult
    /// `descriptor` is the checked state directory (`StateDirectory.open`): the lock file is
    /// opened through it, not by path.
    static func acquire(stateDirectory: String, descriptor: Int32) throws(DaemonError) -> Int32 {
        let fd = openat(descriptor, fileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .stateDirectory(path: stateDirectory, reason: "cannot open \(fileName): \(Errno.current)") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = readPID(fd)
            close(fd)
            throw .stateInUse(path: stateDirectory, pid: holder)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return fd
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n").first ?? "")
    }
}
