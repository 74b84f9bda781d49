import BrokerProtocol

/// `authctl approve NAME [--exe PATH] [--code CODE] [--deny]`: decides for a `--confirm` account's caller.
enum ApproveCommand: Command {
    static let name = "approve"
    static let summary = "approve (or --deny) a program waiting for a --confirm account's token"
    static let help = """
        usage: authctl approve NAME [--exe PATH] [--code CODE] [--deny]

        An account added with --confirm serves a program (its executable, /proc/PID/exe) only after
        it was approved once since the daemon started; until then its token request waits (60 s by
        default, authbrokerd --approval-timeout) and the notify hook runs with approval_needed and
        a one-time code (AUTHBROKER_APPROVAL_CODE; the desktop notification shows it). Approving
        needs that code, which no program can get from the daemon's socket: the waiting program
        cannot approve itself. `authctl approvals` lists what waits.

          --exe PATH    the program to decide for (default: the one waiting for NAME; refused
                        when none or several wait)
          --code CODE   the code the notification showed (ABCD-EFGH); without it authctl asks
                        on the terminal. 5 wrong codes end the wait: the program must ask again.
          --deny        refuse it instead, until the daemon restarts (needs no code; a program
                        not yet waiting may be named)

        Decisions last until the daemon restarts. Same-user code can still run an approved
        program with arguments of its choosing: see docs/security.md, "Caller policy".
        """
    static let options: [CommandLineArguments.Option] = [.value("--exe"), ConfirmationPrompt.option, .flag("--deny")]

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        let account = try context.checked(try requireAccountName(arguments, command: "authctl approve"))
        let executable = arguments.value("--exe")
        if let executable, let problem = CallerExecutable.problem(with: [executable]) { throw UsageError("--exe: \(problem)") }
        let deny = arguments.has("--deny")
        var code = try ConfirmationPrompt.given(arguments)
        if !deny, code == nil {
            code = ConfirmationPrompt.ask()
            guard code != nil else {
                let exe = executable.map { " --exe \(ShownText.shellWord($0))" } ?? ""
                throw BrokerClientError.api(
                    WireError(
                        code: .confirmationRequired,
                        message: "approving needs the one-time code the notification showed; no terminal to ask on: "
                            + "authctl approve \(account)\(exe) --code CODE"))
            }
        }
        let decision = ApprovalDecision(account: account, executable: executable, deny: deny, code: deny ? nil : code)
        let result = try context.client.call(.decideApproval, body: decision)
        let released = result.released == 1 ? "1 waiting request" : "\(result.released) waiting requests"
        let program = ShownText.escaped(result.executable)
        Output.note("The daemon \(result.decision) \(program) for '\(account)' until the daemon restarts (\(released)).")
        return ExitCode.success
    }
}

/// `authctl approvals [--json]`: the token requests waiting for `authctl approve`.
enum ApprovalsCommand: Command {
    static let name = "approvals"
    static let summary = "list programs waiting for approval (--confirm accounts)"
    static let help = """
        usage: authctl approvals [--json]

        A header, then one tab-separated line per program waiting for a --confirm account's
        token: ACCOUNT, PROGRAM (control characters shown as \\xNN), the first waiting PID and
        how many requests wait; with none, a note on stderr and no output. Decide with:
        authctl approve NAME --exe PATH --code CODE (the code is in the notification, not here)
        """
    static let options: [CommandLineArguments.Option] = [.flag("--json")]

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.isEmpty else { throw UsageError("'authctl approvals' takes no arguments") }
        let list = try context.client.call(.listApprovals)
        if arguments.has("--json") {
            Output.line(CommandContext.json(list))
            return ExitCode.success
        }
        guard !list.approvals.isEmpty else {
            Output.note("No program is waiting for approval.")
            return ExitCode.success
        }
        Output.line("ACCOUNT\tPROGRAM\tPID\tWAITING")
        for pending in list.approvals {
            // The path is the waiting program's choice: escaped, so it cannot drive the terminal.
            let program = ShownText.escaped(pending.executable)
            Output.line("\(pending.account)\t\(program)\tpid \(pending.pid)\t\(pending.waiting) waiting")
        }
        return ExitCode.success
    }
}
