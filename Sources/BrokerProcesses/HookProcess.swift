import BrokerCore
import BrokerHTTP
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's `HookRunner`: the notify hook spawned with `posix_spawn` (no inherited descriptors
/// or signal state) and reaped on a thread of its own (`BlockingThread`), so the actor never
/// blocks and never waits for it.
public struct HookProcess: HookRunner {
    public init() {}

    public func notifySendPath(environment: [String: String]) -> String? { Self.notifySendPath(environment: environment) }

    public func start(_ argv: [String], environment: [String: String], finished: @escaping @Sendable (Int32) -> Void) -> Bool {
        BlockingThread.start { finished(Self.run(argv, environment: environment)) }
    }

    /// notify-send's path when a graphical session can show it.
    static func notifySendPath(environment: [String: String]) -> String? {
        guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else { return nil }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/notify-send" }.first { access($0, X_OK) == 0 }
    }

    /// Spawns `argv` with stdin/stdout on /dev/null and waits for it (on the calling thread).
    /// Returns the exit status, or -1 when it could not be started.
    static func run(_ argv: [String], environment: [String: String]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        // The hook is the user's shell command: it must not inherit the daemon's descriptors (the
        // listening socket from systemd, the database, client connections).
        _ = GNUCalls.addCloseFrom(&actions, 3)
        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let cEnv: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        // Nor the daemon's signal state: its threads block SIGPIPE (and may block more), and it
        // ignores SIGPIPE, SIGTERM, SIGINT, SIGHUP and SIGUSR1 — as it may SIGQUIT, inherited from
        // a shell's `&` — and ignored dispositions survive exec: a hook (and what it starts)
        // could not be stopped or would miss a broken pipe. Every signal goes back to its default.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigfillset(&defaults)  // glibc leaves its own internal signals out
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, &attributes, cArgs, cEnv) == 0 else { return -1 }
        var status: Int32 = 0
        _ = SystemCall.retryingInterrupts { waitpid(pid, &status, 0) }
        // WIFEXITED/WEXITSTATUS are macros: decode the wait status by hand.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }
}
