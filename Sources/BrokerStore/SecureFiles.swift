import BrokerCrypto
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// File-system helpers for private files: directories 0700, files 0600, key files checked the way
/// ssh checks private keys, and crash-safe writes (write, fsync, rename, fsync the directory).
enum SecureFiles {
    /// Key and passphrase files are tiny; anything bigger is not one.
    static let maximumSecretFileSize = 4096

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Creates `path` and any missing parents with mode 0700 (existing directories are left alone).
    static func createPrivateDirectory(_ path: String) throws(StoreError) {
        guard !path.isEmpty, !exists(path) else { return }
        let parent = directory(of: path)
        if parent != path { try createPrivateDirectory(parent) }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw .filesystem(path: path, operation: "creating directory", errno: errno)
        }
        // mkdir honours the umask, which can only remove bits; chmod makes the mode exact.
        _ = chmod(path, 0o700)
    }

    /// Creates the database file 0600 before SQLite opens it (SQLite would use 0644 under the
    /// default umask) and refuses an existing db/-wal/-shm file that group or other may access,
    /// that another user owns, or that is not a regular file (opened without following a
    /// symlink; checked by descriptor). Refused, not tightened: a loose mode means something
    /// else touched the file, and the user should look (docs/security.md, "Encryption at rest").
    static func prepareDatabaseFile(_ path: String) throws(StoreError) {
        try createPrivateDirectory(directory(of: path))
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .filesystem(path: path, operation: "creating", errno: errno) }
        defer { close(descriptor) }
        try checkPrivate(descriptor: descriptor, path: path)
        for suffix in ["-wal", "-shm"] {
            let companion = open(path + suffix, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
            guard companion >= 0 else {
                if errno == ENOENT { continue }
                throw .filesystem(path: path + suffix, operation: "opening", errno: errno)
            }
            defer { close(companion) }
            try checkPrivate(descriptor: companion, path: path + suffix)
        }
    }

    private static func checkPrivate(descriptor: Int32, path: String) throws(StoreError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .filesystem(path: path, operation: "stat", errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .filesystem(path: path, operation: "using (not a regular file)", errno: EINVAL)
        }
        guard info.st_uid == getuid() else { throw .wrongOwner(path: path, owner: info.st_uid) }
        guard info.st_mode & 0o077 == 0 else { throw .permissionsTooOpen(path: path, mode: info.st_mode) }
    }

    /// Reads a key or passphrase file, refusing one that group/other may read or write, one owned
    /// by another user, one that is not a regular file, or one too large to be a key.
    static func readSecretFile(_ path: String) throws(StoreError) -> Secret {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .filesystem(path: path, operation: "opening", errno: errno) }
        defer { close(descriptor) }
        var info = stat()
        // fstat on the opened descriptor: the file checked is the file read (no check/use race).
        guard fstat(descriptor, &info) == 0 else { throw .filesystem(path: path, operation: "stat", errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .invalidKeyFile(path: path, reason: "not a regular file")
        }
        guard info.st_mode & 0o077 == 0 else { throw .permissionsTooOpen(path: path, mode: info.st_mode) }
        guard info.st_uid == getuid() || info.st_uid == 0 else { throw .wrongOwner(path: path, owner: info.st_uid) }
        guard info.st_size <= maximumSecretFileSize else {
            throw .invalidKeyFile(path: path, reason: "larger than \(maximumSecretFileSize) bytes")
        }
        var buffer = [UInt8](repeating: 0, count: maximumSecretFileSize + 1)
        defer { buffer.withUnsafeMutableBytes { wipe($0) } }
        var total = 0
        while total < buffer.count {
            let count = buffer.withUnsafeMutableBytes { raw in
                SystemCall.retryingInterrupts { read(descriptor, raw.baseAddress! + total, raw.count - total) }
            }
            guard count >= 0 else { throw .filesystem(path: path, operation: "reading", errno: errno) }
            if count == 0 { break }
            total += count
        }
        return Secret(buffer[..<total])
    }

    /// Writes a new file 0600 (failing if it exists), fsyncs it and its directory.
    static func writeNewSecretFile(_ path: String, contents: Secret) throws(StoreError) {
        try createPrivateDirectory(directory(of: path))
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .filesystem(path: path, operation: "creating", errno: errno) }
        var failure: StoreError?
        contents.withUnsafeBytes { bytes in
            if let error = SystemCall.writeAll(bytes, { write(descriptor, $0.baseAddress, $0.count) }) {
                failure = .filesystem(path: path, operation: "writing", errno: error.code)
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = .filesystem(path: path, operation: "fsync", errno: errno) }
        close(descriptor)
        if let failure {
            unlink(path)
            throw failure
        }
        try syncDirectory(of: path)
    }

    /// Replaces `path` atomically: a temporary sibling is written 0600 and fsynced, then renamed
    /// over `path`, then the directory is fsynced — after a crash either the old or the new file is there.
    static func replaceSecretFile(_ path: String, contents: Secret) throws(StoreError) {
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        try writeNewSecretFile(temporary, contents: contents)
        try rename(temporary, to: path)
    }

    /// `rename(2)` followed by an fsync of the directory, so the rename itself is durable.
    static func rename(_ source: String, to destination: String) throws(StoreError) {
        guard Glibc.rename(source, destination) == 0 else {
            let code = errno
            unlink(source)
            throw .filesystem(path: destination, operation: "renaming '\(source)' to", errno: code)
        }
        try syncDirectory(of: destination)
    }

    private static func syncDirectory(of path: String) throws(StoreError) {
        let directory = directory(of: path)
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .filesystem(path: directory, operation: "opening", errno: errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw .filesystem(path: directory, operation: "fsync", errno: errno) }
    }
}
