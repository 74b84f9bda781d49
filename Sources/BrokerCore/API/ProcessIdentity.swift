/// What the audit line records about the process that received a token: `/proc/PID/exe`, its
/// `comm` and its start time (field 22 of `/proc/PID/stat`, clock ticks since boot). The daemon
/// reads them (BrokerProcesses, `ProcessIdentity.of(pid:)`) and hands the reader to `APIRouter`.
///
/// None of this is proof of identity. A client can connect, fork and exec another program, so
/// the pid the kernel reports (SO_PEERCRED, captured at `connect()`) may by now run something
/// else; `comm` is settable by the process itself (`prctl(PR_SET_NAME)`). The start time makes
/// the record precise: pid + start time name exactly one process since boot, so a log reader
/// can tell a reused pid from the original (docs/security.md, "What is logged").
public struct ProcessIdentity: Sendable, Equatable {
    /// Target of `/proc/PID/exe`, or "unknown".
    public var executable: String
    /// The process's `comm` (at most 15 bytes, chosen by the process), or "unknown".
    public var command: String
    /// Field 22 of `/proc/PID/stat` (start time in clock ticks after boot), or "unknown".
    public var startTime: String
    /// For an adapter (this installation's authctl), the ancestor it ran for as the caller policy
    /// found it (`ProcessAncestry`, `CallerPolicy.speaker`); nil when no one looked.
    public var via: String?
    /// The file the process runs (`stat` of `/proc/PID/exe`: device and inode), read only for an
    /// account with a caller policy (`ExecutableLookup`); nil when not read or not readable.
    public var executableID: FileIdentity?

    public init(executable: String, command: String, startTime: String) {
        self.executable = executable
        self.command = command
        self.startTime = startTime
    }

    /// Every field "unknown": a pid that cannot be read.
    public static let unknown = ProcessIdentity(executable: "unknown", command: "unknown", startTime: "unknown")
}
