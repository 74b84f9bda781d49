/// An account's `--allow-exe` list: the executables (as `/proc/PID/exe` names them) that may get
/// its tokens. Shared by `authctl account add|update --allow-exe` and the daemon, which check the same.
///
/// The kernel resolves symlinks in `/proc/PID/exe`, so a path is compared byte for byte with that
/// target: a symlink or a path with `.`/`..` could never match and is refused here rather than
/// silently locking every caller out.
public enum CallerExecutable {
    /// At most this many `--allow-exe` entries (the list is scanned for every token handed out).
    public static let maximumAllowed = 32
    /// Linux's PATH_MAX, terminating NUL included: `readlink` of `/proc/PID/exe` returns no more.
    public static let maximumLength = 4095
    /// What Linux appends to `/proc/PID/exe` when the file was replaced or removed since the exec.
    public static let deletedSuffix = " (deleted)"
    /// What the daemon appends when the file a process runs is not the file its path names for the
    /// daemon (device and inode differ: a bind mount in another namespace, or a file replaced since).
    public static let notTheFileSuffix = " (not the file at this path)"
    /// What the daemon appends for a process in another mount or user namespace than its own,
    /// whose paths may name other files (unless the account allows other namespaces).
    public static let otherNamespaceSuffix = " (in another namespace)"
    /// What the daemon appends when a process's namespaces cannot be read.
    public static let unknownNamespaceSuffix = " (namespace unknown)"
    /// The marks of an executable that cannot be determined: nothing with one is ever allowed.
    public static let undeterminedSuffixes = [deletedSuffix, notTheFileSuffix, otherNamespaceSuffix, unknownNamespaceSuffix]

    /// True when `executable` carries one of `undeterminedSuffixes`.
    public static func undetermined(_ executable: String) -> Bool {
        undeterminedSuffixes.contains { executable.hasSuffix($0) }
    }

    /// Why `list` cannot be an allow-list, or nil when it can.
    public static func problem(with list: [String]) -> String? {
        guard list.count <= maximumAllowed else { return "at most \(maximumAllowed) executables" }
        for path in list {
            if let problem = problem(withPath: path) { return "'\(shown(path))' \(problem)" }
        }
        return nil
    }

    /// True when `executable` (a `/proc/PID/exe` target) is on `allowed`. An executable that could
    /// not be read ("unknown") or cannot be determined (`undeterminedSuffixes`: its file is gone,
    /// is not the file at its path, or it runs in another namespace) is never allowed: fail closed.
    public static func matches(_ executable: String, allowed: [String]) -> Bool {
        guard executable.hasPrefix("/"), !undetermined(executable) else { return false }
        return allowed.contains(executable)
    }

    /// authctl is installed as two executables side by side: the front, `authctl` (the token
    /// fast path, Sources/authctl), and the full CLI it runs for everything else, `authctl-full`.
    /// For the policy they are one program, named by the front: `DIR/authctl-full` is checked,
    /// approved and named in messages as `DIR/authctl`. This allows nothing new: whoever can
    /// place a file in DIR can replace `DIR/authctl` too. Audit lines keep the real executable.
    public static func policyName(of executable: String) -> String {
        let full = "/authctl-full"
        guard executable.hasSuffix(full) else { return executable }
        return String(executable.dropLast(full.utf8.count)) + "/authctl"
    }

    private static func problem(withPath path: String) -> String? {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return "is not an absolute path" }
        guard bytes.count <= maximumLength else { return "is longer than \(maximumLength) bytes" }
        // Control characters would forge lines in the audit log and the 403 message.
        guard !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return "contains control characters"
        }
        if let suffix = undeterminedSuffixes.first(where: path.hasSuffix) {
            return "ends with '\(suffix)', which no running program matches"
        }
        let components = bytes.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard components.allSatisfy({ !$0.isEmpty && $0 != [UInt8(ascii: ".")] && $0 != [UInt8(ascii: "."), UInt8(ascii: ".")] })
        else {
            return "is not a normalised path (no '//', '.', '..' or trailing '/'; give the target of `readlink -f`)"
        }
        return nil
    }

    private static func shown(_ path: String) -> String {
        path.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) ? String(path.prefix(80)) : "?"
    }
}
