import BrokerProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// A file as the kernel knows it, whatever its name: the device and inode of `stat(2)`. Written
/// `MAJOR:MINOR:INODE` (`exe_id=` in the audit line, the numbers `stat -c '%Hd:%Ld:%i'` prints).
public struct FileIdentity: Sendable, Hashable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    init(_ status: stat) { self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino)) }

    /// `stat(path)`, symlinks followed; nil when it fails. For `/proc/PID/exe` this is the file the
    /// process runs, in whatever mount namespace it was found: the kernel follows that link to
    /// the open file itself, not to its name.
    static func of(path: String) -> FileIdentity? {
        var status = stat()
        return stat(path, &status) == 0 ? FileIdentity(status) : nil
    }

    /// `fstatat(directory, name)`, symlinks followed; nil when it fails.
    static func at(_ directory: Int32, _ name: String) -> FileIdentity? {
        var status = stat()
        return fstatat(directory, name, &status, 0) == 0 ? FileIdentity(status) : nil
    }

    // glibc's gnu_dev_major/minor encoding (macros in sys/sysmacros.h, not imported).
    public var description: String {
        let major = ((device & 0x0000_0000_000f_ff00) >> 8) | ((device & 0xffff_f000_0000_0000) >> 32)
        let minor = (device & 0x0000_0000_0000_00ff) | ((device & 0x0000_0fff_fff0_0000) >> 12)
        return "\(major):\(minor):\(inode)"
    }
}

/// What the caller policy learns about the file a peer runs, beyond the name `/proc/PID/exe`
/// gives: that file's identity and whether the peer shares the daemon's mount and user
/// namespaces. Read only for an account with a caller policy (`ExecutableLookup`), once per
/// connection (`PeerIdentity`).
public struct ExecutableFile: Sendable, Equatable {
    /// Where the peer is, as far as names go.
    public enum Namespace: Sendable, Equatable {
        /// The daemon's mount and user namespaces, or those it was started from: a path names
        /// the same file for the peer as for the daemon.
        case home
        /// Another mount or user namespace (a container, `unshare -Urm`): its paths may name other files.
        case other
        /// `/proc/PID/ns` could not be read (the process is gone, or not ours to read).
        case unknown
    }

    /// `stat` of `/proc/PID/exe`; nil when it cannot be read.
    public var file: FileIdentity?
    public var namespace: Namespace

    public init(file: FileIdentity?, namespace: Namespace) {
        self.file = file
        self.namespace = namespace
    }
}

/// The reads behind `ExecutableFile` and the daemon's side of the comparison, injectable for tests.
public struct ExecutableLookup: Sendable {
    /// The running file of a pid and where it is.
    public var running: @Sendable (Int32) -> ExecutableFile
    /// The file at a path as the daemon sees it now (`stat`), nil when there is none.
    public var file: @Sendable (String) -> FileIdentity?

    public init(running: @escaping @Sendable (Int32) -> ExecutableFile, file: @escaping @Sendable (String) -> FileIdentity?) {
        self.running = running
        self.file = file
    }

    /// The system's: `stat` of `/proc/PID/exe` and `readlink` of `/proc/PID/ns/{mnt,user}`
    /// compared with `home`. (readlink of an ns link costs half a stat of it: it only prints the
    /// inode number, and nsfs is one file system, so the number alone names the namespace.)
    public static func system(home: HomeNamespaces) -> ExecutableLookup {
        ExecutableLookup(
            running: { pid in
                let namespaces = Namespaces.of(pid: pid)
                let place: ExecutableFile.Namespace =
                    namespaces.map { home.contains($0) ? .home : .other } ?? .unknown
                return ExecutableFile(file: FileIdentity.of(path: "/proc/\(pid)/exe"), namespace: place)
            },
            file: { FileIdentity.of(path: $0) })
    }

    /// The daemon's own, home namespaces captured on first use (`HomeNamespaces.current`).
    public static let system = ExecutableLookup.system(home: .current)
}

/// A process's mount and user namespaces: the inode numbers of `/proc/PID/ns/mnt` and `ns/user`.
public struct Namespaces: Sendable, Hashable {
    public var mount: String
    public var user: String

    public init(mount: String, user: String) {
        self.mount = mount
        self.user = user
    }

    /// Nil when either link cannot be read.
    public static func of(pid: Int32) -> Namespaces? {
        let base = pid > 0 ? "/proc/\(pid)/ns/" : "/proc/self/ns/"
        guard let mount = link(base + "mnt"), let user = link(base + "user") else { return nil }
        return Namespaces(mount: mount, user: user)
    }

    /// "mnt:[4026531832]" and the like.
    private static func link(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The namespaces whose paths name the same files as the daemon's: its own, and — captured when
/// the daemon starts — its parent's. The second is what makes the systemd user unit work: its
/// `PrivateUsers=` and `ProtectSystem=` put the daemon in namespaces of its own, while the
/// programs it serves share those of the user manager that started it (its parent), whose
/// bind-mounted `/usr` holds the same files.
public struct HomeNamespaces: Sendable {
    public var members: Set<Namespaces>

    public init(_ members: Set<Namespaces>) { self.members = members }

    /// This process's namespaces and its parent's (when readable), read now.
    public static var current: HomeNamespaces {
        HomeNamespaces(Set([Namespaces.of(pid: 0), Namespaces.of(pid: getppid())].compactMap { $0 }))
    }

    func contains(_ namespaces: Namespaces) -> Bool { members.contains(namespaces) }
}

extension CallerExecutable {
    /// The name the caller policy judges a peer by: its `/proc/PID/exe` path when that path, as the
    /// daemon sees it now, is the file the peer runs; otherwise the path marked as one that cannot
    /// be determined (`notTheFileSuffix`, `otherNamespaceSuffix`), which nothing matches.
    static func determined(
        _ executable: String, running: ExecutableFile, allowOtherNamespaces: Bool, fileAt: (String) -> FileIdentity?
    ) -> String {
        guard executable.hasPrefix("/"), !undetermined(executable) else { return executable }
        switch running.namespace {
        case .home: break
        case .other where allowOtherNamespaces: break
        case .other: return executable + otherNamespaceSuffix
        case .unknown: return executable + unknownNamespaceSuffix
        }
        guard let file = running.file, fileAt(executable) == file else { return executable + notTheFileSuffix }
        return executable
    }
}
