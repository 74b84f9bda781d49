import BrokerProtocol
import WireFormats

/// Tells the user an account needs a login: `--notify-command CMD` run with `/bin/sh -c`, or
/// notify-send when it is on PATH and a display exists, else a log line.
///
/// The command gets AUTHBROKER_EVENT (`login_required`, or `approval_needed`: `approvalNeeded`, or
/// `policy_change`: `policyChange`, both with a one-time code in AUTHBROKER_APPROVAL_CODE, or
/// `step_up_required`: `stepUpNeeded`, NotifyHook+StepUp.swift),
/// AUTHBROKER_ACCOUNT, AUTHBROKER_OWNER_UID (names collide across owners in
/// system mode), AUTHBROKER_REASON and (when a login is pending) AUTHBROKER_URL in its environment — values, never shell text, so nothing in them is interpreted.
/// It is spawned and reaped on a dedicated thread by the daemon's `HookRunner` (BrokerProcesses'
/// `HookProcess`): the actor never blocks and never waits for it.
/// The state machine asks for one notification per terminal failure, so this never loops.
struct NotifyHook: Sendable {
    let command: String?
    let environment: [String: String]
    let logger: Logger
    /// Starts the processes; nil: none is started, the log line is the notification.
    let runner: (any HookRunner)?

    init(command: String?, environment: [String: String], logger: Logger, runner: (any HookRunner)?) {
        self.command = command.flatMap { $0.isEmpty ? nil : $0 }
        self.environment = environment
        self.logger = logger
        self.runner = runner
    }

    func notify(_ note: AccountStateMachine.Notification, owner: UInt32) {
        let key = AccountKey(owner: owner, name: note.account)
        let log = logger.with(key)
        log.warning("login required: \(note.reason). Log in with: authctl login \(note.account)")
        run(
            "login_required", account: key, ["AUTHBROKER_REASON": note.reason, "AUTHBROKER_URL": note.url],
            title: "authbroker: \(note.account) needs a login", body: "\(note.reason)\nRun: authctl login \(note.account)",
            log: log)
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
        log.warning(
            "approval needed: \(shown) (pid \(pid)) asks for a token. Approve with: \(approve) "
                + "(the code is shown by the notification\(channel))")
        let body =
            "It asks for the tokens of '\(key.name)' (pid \(pid)).\nCode: \(code)\n"
            + "Run: authctl approve \(key.name) --exe \(word) --code \(code)   (or --deny)"
        run(
            "approval_needed", account: key,
            ["AUTHBROKER_EXE": shown, "AUTHBROKER_PID": String(pid), "AUTHBROKER_APPROVAL_CODE": code],
            title: "authbroker: approve \(shown)?", body: body, log: log)
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
        log.warning(
            "caller policy change (\(keys)) asked by \(shown) (pid \(caller.pid)): "
                + "it needs the code shown by the notification\(channel)")
        // What the change would allow, so the user can tell it from the change they asked for.
        let listed = proposal?.allowedExecutables ?? []
        let programs = listed.isEmpty ? "any program" : listed.map(ShownText.escaped).joined(separator: ", ")
        let confirm = proposal?.confirm == true ? ", each approved first" : ""
        let body =
            "\(shown) (pid \(caller.pid)) asks to change \(keys) of '\(key.name)': "
            + "its tokens would go to \(programs)\(confirm).\nCode: \(code)\n"
            + "Give it only if you asked for this change (authctl asks for it, or --code \(code))."
        run(
            "policy_change", account: key,
            [
                "AUTHBROKER_CHANGED": keys, "AUTHBROKER_EXE": shown, "AUTHBROKER_PID": caller.pid,
                "AUTHBROKER_APPROVAL_CODE": code,
            ],
            title: "authbroker: change who gets the tokens of '\(key.name)'?", body: body, log: log)
    }

    /// Runs the hook for `event` with the variables every event has (AUTHBROKER_EVENT,
    /// AUTHBROKER_ACCOUNT, AUTHBROKER_OWNER_UID) and the event's own (a nil value: unset), or
    /// notify-send with `title` and `body`; nothing when there is neither.
    func run(
        _ event: String, account key: AccountKey, _ variables: [String: String?], title: String, body: String, log: Logger
    ) {
        guard let runner, let argv = argv(title: title, body: body, runner: runner) else { return }
        var environment = environment
        environment["AUTHBROKER_EVENT"] = event
        environment["AUTHBROKER_ACCOUNT"] = key.name
        environment["AUTHBROKER_OWNER_UID"] = String(key.owner)
        for (name, value) in variables { environment[name] = value }
        let started = runner.start(argv, environment: environment) { status in
            if status != 0 { log.warning("the notify command exited with status \(status)") }
        }
        if !started { log.error("cannot start the notify command: the system is out of threads") }
    }

    /// Where the code goes, for the log line: nothing, when there is no hook and no notify-send —
    /// then no code can be given (the log never has it); say how to get one.
    private var channel: String {
        command != nil || runner?.notifySendPath(environment: environment) != nil
            ? "" : "; none can be shown: start authbrokerd with --notify-command, or in a desktop session with notify-send"
    }

    /// The user's command, else notify-send showing `title` and `body`; nil when there is neither
    /// (the log line already written is then the notification).
    private func argv(title: String, body: String, runner: any HookRunner) -> [String]? {
        if let command { return ["/bin/sh", "-c", command] }
        guard let notifySend = runner.notifySendPath(environment: environment) else { return nil }
        // notify-send's body is markup to most notification daemons; what a server or a caller
        // chose (scopes, executable paths) must show as text.
        return [notifySend, "--app-name=authbroker", title, HTML.escape(body)]
    }
}

/// Starts the notify hook's processes: the daemon's spawns them (BrokerProcesses' `HookProcess`),
/// BrokerCore only says what to run, so it touches no process itself.
public protocol HookRunner: Sendable {
    /// notify-send's path when a graphical session in `environment` can show it, else nil.
    func notifySendPath(environment: [String: String]) -> String?
    /// Starts `argv` with exactly `environment`, off the calling thread, and reaps it: `finished`
    /// gets its exit status (128 + N for signal N, -1 when it could not be started). False when no
    /// thread could be started for it.
    func start(_ argv: [String], environment: [String: String], finished: @escaping @Sendable (Int32) -> Void) -> Bool
}
