import BrokerCore
import BrokerProtocol

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// What `authbrokerd` was asked to do: run, or print help or its version.
public enum DaemonCommand: Sendable, Equatable {
    case run(DaemonOptions)
    case help
    case version
}

/// The daemon's settings. Each comes from its flag, else its environment variable, else a default:
///
/// | flag                | environment                 | default                                        |
/// |---------------------|-----------------------------|------------------------------------------------|
/// | `--socket`          | `AUTHBROKER_SOCKET`         | `$XDG_RUNTIME_DIR/authbroker/authbroker.sock`  |
/// | `--state-dir`       | `AUTHBROKER_STATE_DIR`      | `$XDG_STATE_HOME/authbroker` (`~/.local/state`)|
/// | `--key-file`        | `AUTHBROKER_KEY_FILE`       | see `KeySource` (credential, default key file) |
/// | `--passphrase-file` | `AUTHBROKER_PASSPHRASE_FILE`| none                                           |
/// | `--ca-file`         | `AUTHBROKER_CA_FILE`        | none (system trust store only)                 |
/// | `--log-level`       | `AUTHBROKER_LOG_LEVEL`      | info                                           |
/// | `--notify-command`  | `AUTHBROKER_NOTIFY_COMMAND` | notify-send when available, else a log line    |
/// | `--allow-uid` (rep.)| none                        | only the daemon's own uid                      |
/// | `--approval-timeout`| `AUTHBROKER_APPROVAL_TIMEOUT`| 60 (seconds a `--confirm` caller waits)       |
/// | `--narrowed-refresh-limit` | `AUTHBROKER_NARROWED_REFRESH_LIMIT` | 10,6 (burst, then per minute) |
public struct DaemonOptions: Sendable, Equatable {
    public var socketPath: String
    public var stateDirectory: String
    public var keyFile: String?
    public var passphraseFile: String?
    public var caFile: String?
    public var logLevel: Logger.Level
    public var notifyCommand: String?
    public var allowedUIDs: Set<UInt32>
    /// Seconds a `--confirm` account's new caller waits for `authctl approve` (1 to 60).
    public var approvalTimeout: Int = CallerApproval.maximumWaitSeconds
    /// New narrowed tokens per account: this many back to back, then `perMinute` (`NarrowedRefreshBudget`).
    public var narrowedRefreshLimit: NarrowedRefreshLimit = NarrowedRefreshLimit()

    /// The vault: `tokens.db` in the state directory.
    public var databasePath: String { stateDirectory + "/tokens.db" }

    static let options: [CommandLineArguments.Option] = [
        .value("--socket"), .value("--state-dir"), .value("--key-file"), .value("--passphrase-file"),
        .value("--ca-file"), .value("--log-level"), .value("--notify-command"), .repeated("--allow-uid"),
        .value("--approval-timeout"), .value("--narrowed-refresh-limit"),
        .flag("--version"), .flag("--help"), .flag("-h"),
    ]

    /// Parses the command line (without the program name) against `environment`.
    public static func parse(
        _ arguments: [String], environment: [String: String], uid: UInt32 = getuid()
    ) throws(UsageError) -> DaemonCommand {
        let parsed = try CommandLineArguments(arguments, command: "authbrokerd", options: options)
        if parsed.has("--help") || parsed.has("-h") { return .help }
        if parsed.has("--version") { return .version }
        if let extra = parsed.positionals.first ?? parsed.passthrough?.first {
            throw UsageError("unexpected argument '\(extra)'; see: authbrokerd --help")
        }
        func setting(_ flag: String, _ variable: String) -> String? {
            if let value = parsed.value(flag) { return value }
            if let value = environment[variable], !value.isEmpty { return value }
            return nil
        }
        let levelName = setting("--log-level", "AUTHBROKER_LOG_LEVEL") ?? "info"
        guard let level = Logger.Level(name: levelName) else {
            throw UsageError("'--log-level' must be debug, info, warning or error, got '\(levelName)'")
        }
        for (flag, value) in [("--socket", parsed.value("--socket")), ("--state-dir", parsed.value("--state-dir"))] {
            if let value, value.isEmpty { throw UsageError("'\(flag)' needs a non-empty path") }
        }
        let approvalTimeout = try approvalSeconds(setting("--approval-timeout", "AUTHBROKER_APPROVAL_TIMEOUT"))
        let narrowedLimit = try NarrowedRefreshLimit(setting("--narrowed-refresh-limit", "AUTHBROKER_NARROWED_REFRESH_LIMIT"))
        var allowed: Set<UInt32> = []
        for text in parsed.all("--allow-uid") { allowed.insert(try userID(text)) }
        var stateDirectory = setting("--state-dir", "AUTHBROKER_STATE_DIR")
        if stateDirectory == nil { stateDirectory = try defaultStateDirectory(environment: environment, uid: uid) }
        return .run(
            DaemonOptions(
                socketPath: SocketPath.resolve(flag: parsed.value("--socket"), environment: environment, uid: uid),
                stateDirectory: stateDirectory ?? "",
                keyFile: setting("--key-file", "AUTHBROKER_KEY_FILE"),
                passphraseFile: setting("--passphrase-file", "AUTHBROKER_PASSPHRASE_FILE"),
                caFile: setting("--ca-file", "AUTHBROKER_CA_FILE"), logLevel: level,
                notifyCommand: setting("--notify-command", "AUTHBROKER_NOTIFY_COMMAND"),
                allowedUIDs: allowed, approvalTimeout: approvalTimeout, narrowedRefreshLimit: narrowedLimit))
    }

    /// `--approval-timeout SECONDS`: 1 to `CallerApproval.maximumWaitSeconds` (authctl waits that long at most).
    static func approvalSeconds(_ text: String?) throws(UsageError) -> Int {
        guard let text else { return CallerApproval.maximumWaitSeconds }
        guard let seconds = Int(text), (1...CallerApproval.maximumWaitSeconds).contains(seconds) else {
            throw UsageError("'--approval-timeout' takes 1 to \(CallerApproval.maximumWaitSeconds) seconds, got '\(text)'")
        }
        return seconds
    }

    /// `--narrowed-refresh-limit BURST,PER_MINUTE`: each 1 to 100,000.
    public struct NarrowedRefreshLimit: Sendable, Equatable {
        public var burst = 10
        public var perMinute = 6

        public init() {}

        init(_ text: String?) throws(UsageError) {
            guard let text else { return }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let burst = Int(parts[0]), let perMinute = Int(parts[1]),
                (1...100_000).contains(burst), (1...100_000).contains(perMinute)
            else {
                throw UsageError(
                    "'--narrowed-refresh-limit' takes BURST,PER_MINUTE (each 1 to 100000) such as 10,6, got '\(text)'")
            }
            (self.burst, self.perMinute) = (burst, perMinute)
        }
    }

    /// `$XDG_STATE_HOME/authbroker`; XDG_STATE_HOME defaults to `~/.local/state` (a relative one is
    /// ignored, as the XDG specification requires).
    static func defaultStateDirectory(environment: [String: String], uid: UInt32) throws(UsageError) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/authbroker" }
        guard let home = homeDirectory(environment: environment, uid: uid) else {
            throw UsageError("neither XDG_STATE_HOME nor HOME is set; pass --state-dir DIR")
        }
        return home + "/.local/state/authbroker"
    }

    private static func homeDirectory(environment: [String: String], uid: UInt32) -> String? {
        if let home = environment["HOME"], home.hasPrefix("/") { return home }
        guard let entry = getpwuid(uid), let directory = entry.pointee.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.hasPrefix("/") ? home : nil
    }

    /// A numeric uid or a user name from the password database.
    static func userID(_ text: String) throws(UsageError) -> UInt32 {
        if let uid = UInt32(text) { return uid }
        guard !text.isEmpty, let entry = getpwnam(text) else {
            throw UsageError("'--allow-uid' takes a uid or a user name; no user '\(text)'")
        }
        return entry.pointee.pw_uid
    }

    public static let usage = """
        usage: authbrokerd [options]

        The authbroker daemon: keeps OAuth 2.0 / OpenID Connect tokens fresh and serves them to
        local programs over a Unix socket (see authctl). Runs in the foreground, logs to stderr.

        options (flag, else environment variable, else default):
          --socket PATH           AUTHBROKER_SOCKET; $XDG_RUNTIME_DIR/authbroker/authbroker.sock
          --state-dir DIR         AUTHBROKER_STATE_DIR; $XDG_STATE_HOME/authbroker (holds tokens.db)
          --key-file PATH         AUTHBROKER_KEY_FILE; $CREDENTIALS_DIRECTORY/authbroker.key, else
                                  $XDG_CONFIG_HOME/authbroker/master.key (made 0600 on first start)
          --passphrase-file PATH  AUTHBROKER_PASSPHRASE_FILE; derive the key with scrypt instead
          --ca-file PATH          AUTHBROKER_CA_FILE; extra CA certificates for outbound TLS
          --log-level LEVEL       AUTHBROKER_LOG_LEVEL; debug, info (default), warning or error
          --notify-command CMD    AUTHBROKER_NOTIFY_COMMAND; run with /bin/sh -c when a login is
                                  needed or a --confirm caller waits (env AUTHBROKER_EVENT,
                                  AUTHBROKER_ACCOUNT, AUTHBROKER_REASON, AUTHBROKER_URL, AUTHBROKER_EXE)
          --allow-uid UID|USER    also serve this user (system mode; repeatable)
          --approval-timeout S    AUTHBROKER_APPROVAL_TIMEOUT; seconds a --confirm account's new
                                  caller waits for `authctl approve` (1-60, default 60)
          --narrowed-refresh-limit B,M
                                  AUTHBROKER_NARROWED_REFRESH_LIMIT; new narrowed tokens per
                                  account: B at once, then M a minute (default 10,6)
          --version, --help

        signals: SIGTERM/SIGINT stop gracefully; SIGHUP reloads (re-reads the CA file, resets the
        log level to the configured one); SIGUSR1 toggles debug logging.
        systemd: socket activation (LISTEN_FDS), Type=notify (READY/STATUS/STOPPING/RELOADING),
        watchdog (WATCHDOG_USEC), journald priorities when JOURNAL_STREAM names stderr.
        """
}
