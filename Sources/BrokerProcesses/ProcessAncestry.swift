import BrokerCore
import BrokerProtocol
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The executables of a process's ancestors, parent first (`/proc/PID/exe` of each), for the
/// caller policy of adapters (`CallerPolicy.speaker`). Lazy: a walk reads only as far as it is iterated.
///
/// Read so that a reused pid is never taken for the parent. A parent that exits has its children
/// re-parented (to pid 1 or a subreaper) and its pid may then be given to a new process. So each
/// step opens `/proc/PPID` as a directory first and then re-reads the child's stat through the
/// child's own directory: if the child still names PPID as its parent, the directory opened is
/// that parent (re-parenting never goes back, and a pid is not reused while its process lives),
/// and everything read through it later is that process or nothing (a /proc directory of an
/// exited process answers no more reads, even once its pid is reused). The walk ends — fail
/// closed — when a process is gone, the parent changed, or the parent is pid 1 or 0.
///
/// Each ancestor is named by its executable only when that path, as the daemon sees it now, is
/// the file the ancestor runs (device and inode, `ProcDirectory.determinedExecutable`); else
/// the path is marked `CallerExecutable.notTheFileSuffix` and matches nothing.
public struct ProcessAncestry: Sequence {
    let pid: Int32

    public init(pid: Int32) { self.pid = pid }

    public func makeIterator() -> Iterator { Iterator(child: ProcDirectory(pid: pid)) }

    public struct Iterator: IteratorProtocol {
        var child: ProcDirectory?

        public mutating func next() -> String? {
            guard let current = child else { return nil }
            child = nil
            guard let parentID = current.parentID(), parentID > 1, let parent = ProcDirectory(pid: parentID),
                current.parentID() == parentID
            else { return nil }
            child = parent
            return parent.determinedExecutable()
        }
    }
}

/// An open `/proc/PID` directory: reads through it name that one process, or fail once it exited.
final class ProcDirectory {
    private let descriptor: Int32

    init?(pid: Int32) {
        let descriptor = pid > 0 ? open("/proc/\(pid)", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Field 4 of its stat, read now.
    func parentID() -> Int32? {
        let fd = openat(descriptor, "stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return ProcessIdentity.readStatLine(fd).flatMap(ProcessIdentity.parseParentID)
    }

    /// `executable()` when the file at that path (as this process sees it) is the file the process
    /// runs; otherwise the path marked `CallerExecutable.notTheFileSuffix` (a bind mount in its
    /// namespace, or a file replaced since it started).
    func determinedExecutable() -> String {
        let path = executable()
        guard path.hasPrefix("/"), !CallerExecutable.undetermined(path) else { return path }
        guard let running = FileIdentity.at(descriptor, "exe"), FileIdentity.of(path: path) == running else {
            return path + CallerExecutable.notTheFileSuffix
        }
        return path
    }

    /// The target of its `exe` link, or "unknown" (gone, or not ours to read).
    func executable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlinkat(descriptor, "exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "unknown" }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
