#if canImport(Glibc)
import Glibc
#endif

/// Where the daemon's Unix socket lives. Both binaries resolve it the same way:
/// `--socket PATH` beats `AUTHBROKER_SOCKET` beats the default
/// `$XDG_RUNTIME_DIR/authbroker/authbroker.sock`, or — without XDG_RUNTIME_DIR —
/// `authbroker-<uid>/authbroker.sock` in the system temp directory.
public enum SocketPath {
    public static let fileName = "authbroker.sock"

    public static func resolve(flag: String?, environment: [String: String], uid: UInt32 = getuid()) -> String {
        if let flag, !flag.isEmpty { return flag }
        if let fromEnvironment = environment["AUTHBROKER_SOCKET"], !fromEnvironment.isEmpty { return fromEnvironment }
        return "\(defaultDirectory(environment: environment, uid: uid))/\(fileName)"
    }

    /// The directory that holds the default socket.
    public static func defaultDirectory(environment: [String: String], uid: UInt32 = getuid()) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return "\(runtime)/authbroker"
        }
        return "\(temporaryDirectory(environment: environment))/authbroker-\(uid)"
    }

    static func temporaryDirectory(environment: [String: String]) -> String {
        if let tmp = environment["TMPDIR"], tmp.hasPrefix("/") {
            return tmp.count > 1 && tmp.hasSuffix("/") ? String(tmp.dropLast()) : tmp
        }
        return "/tmp"
    }

    /// Checks that `directory` is a directory owned by `uid` with no group/other access.
    /// In a shared temp directory anyone could have created it first: refuse rather than trust it.
    public static func checkPrivateDirectory(_ directory: String, uid: UInt32 = getuid()) -> String? {
        var info = stat()
        guard lstat(directory, &info) == 0 else { return nil }  // missing: the daemon creates it
        guard info.st_mode & S_IFMT == S_IFDIR else {
            return "'\(directory)' is not a directory; remove it or choose another socket with --socket"
        }
        guard info.st_uid == uid else {
            return "'\(directory)' belongs to uid \(info.st_uid), not \(uid); remove it or choose another socket with --socket"
        }
        guard info.st_mode & 0o077 == 0 else {
            let mode = String(info.st_mode & 0o777, radix: 8)
            return "'\(directory)' has mode \(mode); run: chmod 700 '\(directory)'"
        }
        return nil
    }
}
