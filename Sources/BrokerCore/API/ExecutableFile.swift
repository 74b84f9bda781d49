import BrokerProtocol

/// A file as the kernel knows it, whatever its name: the device and inode of `stat(2)`. Written
/// `MAJOR:MINOR:INODE` (`exe_id=` in the audit line, the numbers `stat -c '%Hd:%Ld:%i'` prints).
public struct FileIdentity: Sendable, Hashable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
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

/// The reads behind `ExecutableFile`, the daemon's side of the comparison and the ancestry of
/// adapters: /proc and `stat` in the daemon (BrokerProcesses, `ExecutableLookup.system`), tables in tests.
public struct ExecutableLookup: Sendable {
    /// The running file of a pid and where it is.
    public var running: @Sendable (Int32) -> ExecutableFile
    /// The file at a path as the daemon sees it now (`stat`), nil when there is none.
    public var file: @Sendable (String) -> FileIdentity?
    /// The executables of a pid's ancestors, parent first, read lazily as far as iterated, for the
    /// caller policy of adapters (`CallerPolicy.speaker`). None by default: an adapter's caller is
    /// then "unknown", which no policy names (fail closed).
    public var ancestors: @Sendable (Int32) -> AnySequence<String>

    public init(
        running: @escaping @Sendable (Int32) -> ExecutableFile, file: @escaping @Sendable (String) -> FileIdentity?,
        ancestors: @escaping @Sendable (Int32) -> AnySequence<String> = { _ in AnySequence([]) }
    ) {
        self.running = running
        self.file = file
        self.ancestors = ancestors
    }
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
