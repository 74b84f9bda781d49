import BrokerCore
import BrokerHTTP
import BrokerProtocol
import BrokerStore
import Dispatch
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// `authbrokerd`: start-up, serving, reload and graceful stop.
///
/// Start-up, in order: hardening (PR_SET_DUMPABLE 0, umask 077); the state directory; the key and
/// the vault (a key that does not open the database refuses to start, naming both files); the
/// socket (inherited through socket activation, else bound in a private 0700 directory — a second
/// daemon refuses with "already running"); the broker; the server; then READY=1 to systemd.
/// SIGTERM/SIGINT: STOPPING=1; side by side, drain the server (5 s) and the broker (token-endpoint
/// calls in flight finish within 10 s and their answers are committed; unsaved tokens get a last
/// save); remove the socket, exit 0 — all well inside the units' TimeoutStopSec=15s.
/// SIGHUP (reload): re-read the CA file into a new HTTPS client (the old one stays if the file is
/// now unusable) and reset the log level to the configured one. SIGUSR1: toggle debug logging.
public enum Daemon {
    /// Runs the daemon; returns the process exit code (0 after a graceful stop, 64 for usage
    /// errors, 1 when start-up is refused).
    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        limitMallocArenas(environment: environment)
        let options: DaemonOptions
        do {
            switch try DaemonOptions.parse(arguments, environment: environment) {
            case .help:
                print(DaemonOptions.usage)
                return 0
            case .version:
                print("authbrokerd \(BrokerVersion.string)")
                return 0
            case .run(let parsed):
                options = parsed
            }
        } catch {
            fputs("authbrokerd: \(error.message)\n", stderr)
            return 64
        }
        signal(SIGPIPE, SIG_IGN)
        // Before anything slow, so a SIGTERM during start-up is queued, not fatal (it starts no task).
        let signals = SignalWatcher([SIGTERM, SIGINT, SIGHUP, SIGUSR1])
        let ownExecutor = DaemonExecutor.install()  // before any task: no libdispatch pool, no once-a-second wake-up
        let output = LogOutput(level: options.logLevel, journal: LogOutput.isJournal(environment: environment))
        if !ownExecutor { output.logger.warning(DaemonExecutor.notInUse) }
        let context = DaemonContext(
            options: options, environment: environment, output: output,
            notifier: SystemdNotifier(environment: environment),
            watchdog: SystemdNotifier.watchdogInterval(environment: environment))
        // Children (the notify command) must not talk to systemd or inherit our socket.
        for name in DaemonContext.systemdVariables { unsetenv(name) }
        let started: StartedDaemon
        do {
            started = try StartedDaemon.start(context)
        } catch {
            output.logger.error("\(error)")
            context.notifier?.send("STATUS=Failed to start: \(error)")
            return 1
        }
        // Serving is async; this (main, non-pool) thread just waits for it to end.
        let done = DispatchSemaphore(value: 0)
        Task {
            await started.serve(context, signals: signals.signals)
            done.signal()
        }
        done.wait()
        return 0
    }
}

/// Everything the daemon decided before start-up.
struct DaemonContext: Sendable {
    let options: DaemonOptions
    let environment: [String: String]
    let output: LogOutput
    let notifier: SystemdNotifier?
    let watchdog: Duration?

    var logger: Logger { output.logger }

    /// What systemd tells this process only (readiness, activation, watchdog).
    static let systemdVariables: Set = [
        "NOTIFY_SOCKET", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID",
    ]

    /// The environment child processes (the notify command) get: ours without `systemdVariables`.
    var childEnvironment: [String: String] { environment.filter { !Self.systemdVariables.contains($0.key) } }
}
