import BrokerHTTP
import BrokerProtocol
import Glibc
import SystemCalls

/// Tells the user an account needs a login: `--notify-command CMD` run with `/bin/sh -c`, or
/// notify-send when it is on PATH and a display exists, else a log line.
///
/// The command gets AUTHBROKER_EVENT (`login_required`, or `approval_needed`: `approvalNeeded`, or
/// `policy_change`: `policyChange`, both with a one-time code in AUTHBROKER_APPROVAL_CODE),
/// AUTHBROKER_ACCOUNT, AUTHBROKER_OWNER_UID (names collide across owners in
/// system mode), AUTHBROKER_REASON and (when a login is pending) AUTHBROKER_URL in its environment — values, never shell text, so nothing in them is interpreted.
/// It is spawned and reaped on a dedicated thread: the actor never blocks and never waits for it.
/// The state machine asks for one notification per terminal failure, so this never loops.
struct NotifyHook: Sendable {
    let command: String?
    let environment: [String: String]
    let logger: Logger

    init(command: String?, environment: [String: String], logger: Logger) {
        self.command = command.flatMap { $0.isEmpty ? nil : $0 }
        self.environment = environment
        self.logger = logger
    }

    func notify(_ note: AccountStateMachine.Notification, owner: UInt32) {
        let log = logger.with(AccountKey(owner: owner, name: note.account))
        log.warning("login required: \(note.reason). Log in with: authctl login \(note.account)")
        var env = environment
        env["AUTHBROKER_ACCOUNT"] = note.account
        env["AUTHBROKER_OWNER_UID"] = String(owner)
        env["AUTHBROKER_REASON"] = note.reason
        env["AUTHBROKER_URL"] = note.url
        env["AUTHBROKER_EVENT"] = "login_required"
        let title = "authbroker: \(note.account) needs a login"
        guard let argv = argv(title: title, body: "\(note.reason)\nRun: authctl login \(note.account)") else { return }
        spawn(argv, environment: env, log: log)
    }

    /// A `--confirm` account's caller waits for approval: the hook runs with AUTHBROKER_EVENT
    /// `approval_needed`, AUTHBROKER_ACCOUNT, AUTHBROKER_OWNER_UID, AUTHBROKER_EXE (control characters
    /// shown as `\xNN`: `ShownText.escaped`), AUTHBROKER_PID and
    /// AUTHBROKER_APPROVAL_CODE, the one-time code `authctl approve` needs; without a hook, a desktop
    /// notification showing the code and the approve command. The log line never has the code.
    func approvalNeeded(account key: AccountKey, executable: String, pid: Int32, code: String) {
        let log = logger.with(key)
        // The path is the caller's choice: escaped wherever a person reads it, quoted where pasted.
        let (shown, word) = (ShownText.escaped(executable), ShownText.shellWord(executable))
        let approve = "authctl approve \(key.name) --exe \(word) --code CODE"
        log.warning("approval needed: \(shown) (pid \(pid)) asks for a token. Approve with: \(approve) "
            + "(the code is shown by the notification\(channel))")
        var env = environment
        env["AUTHBROKER_EVENT"] = "approval_needed"
        env["AUTHBROKER_ACCOUNT"] = key.name
        env["AUTHBROKER_OWNER_UID"] = String(key.owner)
        env["AUTHBROKER_EXE"] = shown
        env["AUTHBROKER_PID"] = String(pid)
        env["AUTHBROKER_APPROVAL_CODE"] = code
        let body = "It asks for the tokens of '\(key.name)' (pid \(pid)).\nCode: \(code)\n"
            + "Run: authctl approve \(key.name) --exe \(word) --code \(code)   (or --deny)"
        guard let argv = argv(title: "authbroker: approve \(shown)?", body: body) else { return }
        spawn(argv, environment: env, log: log)
    }

    /// Someone asks to loosen the caller policy of an account that has one: the hook runs with
    /// AUTHBROKER_EVENT `policy_change`, AUTHBROKER_ACCOUNT, AUTHBROKER_OWNER_UID, AUTHBROKER_CHANGED
    /// (the keys, e.g. `allow_exe,confirm_callers`), AUTHBROKER_PID and AUTHBROKER_EXE (who asks) and
    /// AUTHBROKER_APPROVAL_CODE, the code the change needs; without a hook, a desktop notification.
    func policyChange(
        account key: AccountKey, to proposal: CallerPolicy?, changed: [String], caller: ChangeRequester, code: String
    ) {
        let log = logger.with(key)
        let keys = changed.joined(separator: ",")
        let shown = ShownText.escaped(caller.executable)
        log.warning("caller policy change (\(keys)) asked by \(shown) (pid \(caller.pid)): "
            + "it needs the code shown by the notification\(channel)")
        var env = environment
        env["AUTHBROKER_EVENT"] = "policy_change"
        env["AUTHBROKER_ACCOUNT"] = key.name
        env["AUTHBROKER_OWNER_UID"] = String(key.owner)
        env["AUTHBROKER_CHANGED"] = keys
        env["AUTHBROKER_EXE"] = shown
        env["AUTHBROKER_PID"] = caller.pid
        env["AUTHBROKER_APPROVAL_CODE"] = code
        // What the change would allow, so the user can tell it from the change they asked for.
        let listed = proposal?.allowedExecutables ?? []
        let programs = listed.isEmpty ? "any program" : listed.map(ShownText.escaped).joined(separator: ", ")
        let confirm = proposal?.confirm == true ? ", each approved first" : ""
        let body = "\(shown) (pid \(caller.pid)) asks to change \(keys) of '\(key.name)': "
            + "its tokens would go to \(programs)\(confirm).\nCode: \(code)\n"
            + "Give it only if you asked for this change (authctl asks for it, or --code \(code))."
        guard let argv = argv(title: "authbroker: change who gets the tokens of '\(key.name)'?", body: body) else { return }
        spawn(argv, environment: env, log: log)
    }

    /// Where the code goes, for the log line: nothing, when there is no hook and no notify-send —
    /// then no code can be given (the log never has it); say how to get one.
    private var channel: String {
        command != nil || Self.notifySendPath(environment: environment) != nil
            ? "" : "; none can be shown: start authbrokerd with --notify-command, or in a desktop session with notify-send"
    }

    /// The user's command, else notify-send showing `title` and `body`; nil when there is neither
    /// (the log line already written is then the notification).
    func argv(title: String, body: String) -> [String]? {
        if let command { return ["/bin/sh", "-c", command] }
        guard let notifySend = Self.notifySendPath(environment: environment) else { return nil }
        return [notifySend, "--app-name=authbroker", title, body]
    }

    func spawn(_ argv: [String], environment: [String: String], log: Logger) {
        let started = BlockingThread.start {
            let status = Self.run(argv, environment: environment)
            if status != 0 { log.warning("the notify command exited with status \(status)") }
        }
        if !started { log.error("cannot start the notify command: the system is out of threads") }
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
