import BrokerCore
import BrokerHTTP
import BrokerProtocol
import Synchronization
import SystemCalls

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// Where restricted sockets are bound: `restricted/OWNER/NAME.sock` in the main socket's
/// directory (docs/security.md, "Restricted sockets"), a subdirectory per owner uid, so names are
/// per owner. Everything is checked once and then used only through descriptors, so a swapped
/// path cannot redirect a bind.
///
/// Modes, all owned by the daemon's uid (it has no CAP_CHOWN: it cannot give a file to the owner):
/// - `restricted/` 0710 and, for owners other than the daemon's uid, `restricted/UID/` 0710 with
///   the sockets 0660: the daemon's group (under the system units `authbroker`, which every user
///   the socket unit lets in belongs to) may reach them, nobody may list them; who may *use* one
///   is decided by the daemon's `SO_PEERCRED` check at accept (the owner only), not by the mode.
/// - The daemon's own uid (per-user mode): `restricted/UID/` 0700, sockets 0600.
final class RestrictedSocketDirectory: Sendable {
    /// `…/restricted`, as shown in paths.
    let path: String
    let descriptor: Int32
    let daemonUID: UInt32
    private let owners = Mutex<[UInt32: Int32]>([:])

    static let restrictedMode: mode_t = 0o710

    private init(path: String, descriptor: Int32, daemonUID: UInt32) {
        self.path = path
        self.descriptor = descriptor
        self.daemonUID = daemonUID
    }

    /// `restricted/` in the directory of `socketPath` (the main socket, or the path the units
    /// give with `--socket` for an inherited one), created when missing.
    ///
    /// The main socket's directory is created 0700 when missing. When the daemon binds the main
    /// socket itself it must be 0700 (as before); when the socket came from systemd
    /// (`inherited`), its directory's mode is the administrator's (the system socket unit makes
    /// `/run/authbroker` 0755), but it must still be ours and not writable by group or other
    /// unless sticky.
    static func open(mainSocket socketPath: String, inherited: Bool) throws(DaemonError) -> RestrictedSocketDirectory {
        let parent = socketPath.lastIndex(of: "/").map { String(socketPath[..<$0]) } ?? "."
        let parentPath = parent.isEmpty ? "/" : parent
        let parentFD: Int32
        do throws(PrivateDirectory.Problem) {
            parentFD = try PrivateDirectories.open(parentPath, forbidden: inherited ? 0 : 0o077)
        } catch {
            throw .unsafeSocketDirectory(error.description)
        }
        defer { close(parentFD) }
        var info = stat()
        guard fstat(parentFD, &info) == 0 else {
            throw .unsafeSocketDirectory(PrivateDirectory.Problem.system(parentPath, call: "fstat", errno: errno).description)
        }
        if info.st_mode & 0o022 != 0 && info.st_mode & S_ISVTX == 0 {
            throw .unsafeSocketDirectory(
                PrivateDirectory.Problem.tooOpen(parentPath, mode: info.st_mode & 0o7777, fix: "chmod go-w").description)
        }
        let path = (parentPath == "/" ? "" : parentPath) + "/restricted"
        do throws(WireError) {
            let descriptor = try subdirectory(parentFD, "restricted", shown: path, mode: restrictedMode)
            return RestrictedSocketDirectory(path: path, descriptor: descriptor, daemonUID: getuid())
        } catch {
            throw .unsafeSocketDirectory(error.message)
        }
    }

    /// `NAME.sock` of `owner`, as clients connect to it.
    func socketPath(_ name: String, owner: UInt32) -> String {
        path + "/\(owner)/" + RestrictedSocketName.fileName(name)
    }

    /// Binds `restricted/OWNER/NAME.sock` (bind → chmod → listen). A path that exists is refused
    /// unless `replacingStale` (a `--persist` socket left by a daemon that died), and even then
    /// only a socket nobody answers on is replaced.
    func bind(_ name: String, owner: UInt32, replacingStale: Bool) throws(WireError) -> (HTTPListener, RestrictedSocketFile) {
        let fileName = RestrictedSocketName.fileName(name)
        let shown = socketPath(name, owner: owner)
        let bindPath = PrivateDirectory.path(in: try ownerDirectory(owner), fileName)
        var info = stat()
        if !replacingStale, lstat(bindPath, &info) == 0 {
            throw WireError(
                code: .conflict,
                message: "\(shown) exists and is not one of this daemon's restricted sockets; remove it or choose another name.")
        }
        let listener: HTTPListener
        do { listener = try HTTPListener.unix(path: bindPath, mode: owner == daemonUID ? 0o600 : 0o660) } catch {
            throw WireError(code: .conflict, message: "Cannot create \(shown): \(error)")
        }
        guard lstat(bindPath, &info) == 0 else {
            throw WireError(code: .internal, message: "\(shown) vanished right after it was bound.")
        }
        return (
            listener, RestrictedSocketFile(path: shown, bindPath: bindPath, dev: UInt64(info.st_dev), ino: UInt64(info.st_ino))
        )
    }

    /// The file of a stored socket that expired while no daemon ran, left by one that was killed:
    /// removed only if it is a socket nobody answers on.
    func removeStale(_ name: String, owner: UInt32) throws(WireError) {
        let fileName = RestrictedSocketName.fileName(name)
        do { try HTTPListener.removeStaleSocket(at: PrivateDirectory.path(in: try ownerDirectory(owner), fileName)) } catch {
            throw WireError(code: .conflict, message: "Cannot remove \(socketPath(name, owner: owner)): \(error)")
        }
    }

    /// `restricted/OWNER`, created and checked at its first use, then kept open.
    private func ownerDirectory(_ owner: UInt32) throws(WireError) -> Int32 {
        try owners.withLock { owners throws(WireError) -> Int32 in
            if let fd = owners[owner] { return fd }
            let fd = try Self.subdirectory(
                descriptor, "\(owner)", shown: path + "/\(owner)", mode: owner == daemonUID ? 0o700 : Self.restrictedMode)
            owners[owner] = fd
            return fd
        }
    }

    /// `name` in the directory `parent`: created with `mode` when missing, opened without
    /// following a symlink, owned by us, of our group when the group may enter, and given
    /// exactly `mode` (it is ours: a mode left by an older daemon is corrected).
    private static func subdirectory(_ parent: Int32, _ name: String, shown: String, mode: mode_t) throws(WireError) -> Int32 {
        func failure(_ call: String) -> WireError {
            WireError(code: .internal, message: "\(call) '\(shown)': \(Errno.current)")
        }
        guard mkdirat(parent, name, mode) == 0 || errno == EEXIST else { throw failure("mkdir") }
        let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            defer { close(fd) }
            throw failure("fstat")
        }
        if info.st_uid != getuid() {
            close(fd)
            throw WireError(
                code: .internal,
                message: "'\(shown)' belongs to uid \(info.st_uid), not \(getuid()); remove it and restart authbrokerd")
        }
        if mode & 0o070 != 0, info.st_gid != getegid() {
            close(fd)
            throw WireError(
                code: .internal,
                message: "'\(shown)' has group \(info.st_gid), not the daemon's \(getegid()); remove it and restart authbrokerd")
        }
        guard fchmod(fd, mode) == 0 else {
            defer { close(fd) }
            throw failure("chmod")
        }
        return fd
    }
}

/// One restricted socket's file: removed only while it is still the file we bound.
struct RestrictedSocketFile: Sendable {
    let path: String
    let bindPath: String
    let dev: UInt64
    let ino: UInt64

    func remove() {
        var info = stat()
        guard lstat(bindPath, &info) == 0, UInt64(info.st_dev) == dev, UInt64(info.st_ino) == ino else { return }
        unlink(bindPath)
    }
}
