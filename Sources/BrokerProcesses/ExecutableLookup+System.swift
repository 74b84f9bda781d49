import BrokerCore
import BrokerProtocol

#if canImport(Glibc)
    import Glibc
#endif

// The system's `ExecutableLookup`: `stat` of `/proc/PID/exe`, the namespaces in `/proc/PID/ns`,
// `stat` of a path, and `ProcessAncestry`.
extension ExecutableLookup {
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
            file: { FileIdentity.of(path: $0) },
            ancestors: { AnySequence(ProcessAncestry(pid: $0)) })
    }

    /// The daemon's own, home namespaces captured on first use (`HomeNamespaces.current`).
    public static let system = ExecutableLookup.system(home: .current)
}

extension FileIdentity {
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
