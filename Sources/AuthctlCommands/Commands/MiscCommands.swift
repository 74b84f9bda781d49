import BrokerProtocol

/// `authctl rekey`.
enum RekeyCommand: Command {
    static let name = "rekey"
    static let summary = "re-encrypt every stored secret under a new key"
    static let help = """
        usage: authctl rekey

        Asks the daemon to generate a new master key, re-encrypt every sealed value in one
        transaction, and replace its key file. Not available when the key comes from a
        systemd credential or a passphrase file (rotate those by hand; see authbrokerd(8)).
        """
    static let options: [CommandLineArguments.Option] = []

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.isEmpty else { throw UsageError("'authctl rekey' takes no arguments") }
        let result = try context.client.call(.rekey, body: EmptyObject())
        Output.note("Re-encrypted \(result.resealed) values; the new key is in \(result.keyLocation).")
        return ExitCode.success
    }
}

/// `authctl ping`.
enum PingCommand: Command {
    static let name = "ping"
    static let summary = "check that the daemon is running"
    static let help = """
        usage: authctl ping

        Prints the daemon's version and pid. Exit code 69 when it is not running.
        """
    static let options: [CommandLineArguments.Option] = []

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.isEmpty else { throw UsageError("'authctl ping' takes no arguments") }
        let result = try context.client.call(.ping)
        Output.line("authbrokerd \(result.version) (pid \(result.pid)) is running on \(context.socketPath)")
        return ExitCode.success
    }
}

/// `authctl version`.
enum VersionCommand: Command {
    static let name = "version"
    static let summary = "print authctl's version"
    static let help = "usage: authctl version"
    static let options: [CommandLineArguments.Option] = []

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        Output.line("authctl \(BrokerVersion.string)")
        return ExitCode.success
    }
}

/// `authctl help [COMMAND]`.
enum HelpCommand: Command {
    static let name = "help"
    static let summary = "show help for authctl or one command"
    static let help = "usage: authctl help [COMMAND]"
    static let options: [CommandLineArguments.Option] = []

    static let overview = """
        usage: authctl [--socket PATH] COMMAND [ARGS]

        authctl talks to authbrokerd, the local OAuth 2.0 / OpenID Connect token broker.

        global options:
          --socket PATH   the daemon's socket (env AUTHBROKER_SOCKET; default
                          $XDG_RUNTIME_DIR/authbroker/authbroker.sock)
          --help, -h      show help;  --version  show the version
        """

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        guard let name = arguments.positionals.first else {
            Output.line(overviewText())
            return ExitCode.success
        }
        guard let found = command(named: name) else {
            throw UsageError("no command named '\(name)'; see: authctl help")
        }
        Output.line(found.help)
        return ExitCode.success
    }

    static func overviewText() -> String {
        // Plain closures: key paths into existential metatypes crash the 6.3 compiler.
        let rows = commands.map { command in (name: command.name, summary: command.summary) }
        let width = rows.map { $0.name.count }.max() ?? 0
        let list = rows.map { "  \($0.name)" + String(repeating: " ", count: width - $0.name.count) + "  \($0.summary)" }
        return overview + "\n\ncommands:\n" + list.joined(separator: "\n")
            + "\n\nRun 'authctl help COMMAND' or 'authctl COMMAND --help' for details."
    }
}
