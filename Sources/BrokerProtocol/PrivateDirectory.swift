import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// Opens a directory that must be ours, checking the descriptor — never the path — so nothing
/// can be swapped between the check and the use (no check-then-use by path).
///
/// The path is canonicalized once (`realpath`), then opened one component at a time from "/"
/// with `O_DIRECTORY | O_NOFOLLOW` (a symlink planted after `realpath` fails the walk). Every
/// ancestor must be owned by root or `uid` and, if group/other may write it, be sticky (like
/// `/tmp`): then no other user can rename or replace anything below it. The directory itself
/// must be owned by `uid` with none of the `forbidden` mode bits. Use the returned descriptor
/// (`*at()` calls, or `/proc/self/fd/N/NAME` for AF_UNIX bind/connect) and close it when done.
public enum PrivateDirectory {
    /// Why a directory is refused (the description says what to run).
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case missing(String)
        case notADirectory(String)
        case wrongOwner(String, owner: UInt32, expected: UInt32)
        case tooOpen(String, mode: UInt32, fix: String)
        case untrustedAncestor(String, owner: UInt32, mode: UInt32)
        case system(String, call: String, errno: Int32)

        public var description: String {
            switch self {
            case .missing(let path): "'\(path)' does not exist"
            case .notADirectory(let path): "'\(path)' is not a directory (or is a symlink); remove it or choose another path"
            case .wrongOwner(let path, let owner, let expected):
                "'\(path)' belongs to uid \(owner), not \(expected); remove it, or run: chown \(expected) '\(path)'"
            case .tooOpen(let path, let mode, let fix):
                "'\(path)' has mode \(String(mode, radix: 8)); run: \(fix) '\(path)'"
            case .untrustedAncestor(let path, let owner, let mode):
                "'\(path)' (uid \(owner), mode \(String(mode, radix: 8))) lets another user replace what is below it; "
                    + "use a directory under one only root or you can write"
            case .system(let path, let call, let code): "\(call) '\(path)': \(Errno(code))"
            }
        }
    }

    /// The open descriptor of `path` after the checks above. `fix` is the command the error
    /// suggests for a mode with `forbidden` bits (e.g. "chmod 700").
    public static func open(
        _ path: String, uid: UInt32 = getuid(), forbidden: UInt32, fix: String = "chmod 700"
    ) -> Result<Int32, Problem> {
        guard let resolved = realPath(path) else {
            return .failure(errno == ENOENT ? .missing(path) : .system(path, call: "realpath", errno: errno))
        }
        var fd = Glibc.open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.system("/", call: "open", errno: errno)) }
        var walked = ""
        let components = resolved.split(separator: "/")
        for component in components {
            if let problem = checkAncestor(fd, path: walked.isEmpty ? "/" : walked, uid: uid) {
                close(fd)
                return .failure(problem)
            }
            walked += "/" + component
            let next = openat(fd, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            close(fd)
            guard next >= 0 else {
                return .failure(
                    code == ENOTDIR || code == ELOOP ? .notADirectory(walked) : .system(walked, call: "open", errno: code))
            }
            fd = next
        }
        if let problem = checkFinal(fd, path: path, uid: uid, forbidden: forbidden, fix: fix) {
            close(fd)
            return .failure(problem)
        }
        return .success(fd)
    }

    /// `/proc/self/fd/N/name`: a path the kernel resolves through the open directory `fd`.
    public static func path(in fd: Int32, _ name: String) -> String { "/proc/self/fd/\(fd)/\(name)" }

    private static func checkAncestor(_ fd: Int32, path: String, uid: UInt32) -> Problem? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .system(path, call: "fstat", errno: errno) }
        let writableByOthers = info.st_mode & 0o022 != 0 && info.st_mode & S_ISVTX == 0
        guard info.st_uid == 0 || info.st_uid == uid, !writableByOthers else {
            return .untrustedAncestor(path, owner: info.st_uid, mode: info.st_mode & 0o7777)
        }
        return nil
    }

    private static func checkFinal(_ fd: Int32, path: String, uid: UInt32, forbidden: UInt32, fix: String) -> Problem? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .system(path, call: "fstat", errno: errno) }
        guard info.st_uid == uid else { return .wrongOwner(path, owner: info.st_uid, expected: uid) }
        guard info.st_mode & forbidden == 0 else { return .tooOpen(path, mode: info.st_mode & 0o7777, fix: fix) }
        return nil
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
