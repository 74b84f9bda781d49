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

    /// The parent directory and file name when `path` lies in a temp-dir fallback directory
    /// (`…/authbroker-UID/NAME`), which anyone could have created first; nil otherwise.
    public static func fallbackComponents(of path: String, uid: UInt32) -> (directory: String, name: String)? {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return nil }
        let directory = String(path[..<slash])
        let base = directory.split(separator: "/").last ?? ""
        guard base == "authbroker-\(uid)" else { return nil }
        return (directory, String(path[path.index(after: slash)...]))
    }
}
