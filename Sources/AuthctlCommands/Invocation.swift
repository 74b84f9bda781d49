import BrokerProtocol

/// What authctl's command line asks for, decided before anything runs or is printed, so that
/// argument handling is unit-tested without the binary (InvocationTests).
enum Invocation {
    /// `authctl help`'s overview, for no command (a usage error) or `--help`/`-h` (success).
    case overview(exitCode: Int32)
    /// `authctl COMMAND --help`.
    case help(any Command.Type)
    /// `--version`, anywhere among the global options.
    case version(global: CommandLineArguments)
    case run(any Command.Type, CommandLineArguments, global: CommandLineArguments)

    static let globalOptions: [CommandLineArguments.Option] = [
        .value("--socket"), .flag("--help"), .flag("-h"), .flag("--version"),
    ]

    init(_ arguments: [String]) throws(UsageError) {
        let global = try CommandLineArguments(
            arguments, command: "authctl", options: Self.globalOptions, stopAtFirstPositional: true)
        if global.has("--version") {
            self = .version(global: global)
            return
        }
        let wantsHelp = global.has("--help") || global.has("-h")
        guard let name = global.positionals.first, !wantsHelp else {
            self = .overview(exitCode: global.positionals.isEmpty && !wantsHelp ? ExitCode.usage : ExitCode.success)
            return
        }
        guard let found = command(named: name) else {
            let guess = Suggestion.phrase(for: name, among: commands.map { $0.name })
            throw UsageError("unknown command '\(ShownText.argument(name))'\(guess); see: authctl help")
        }
        let rest = Array(global.positionals.dropFirst())
        // `--help` after `--` belongs to the program `authctl exec` runs, not to authctl.
        let own = rest.prefix { $0 != "--" }
        if own.contains("--help") || own.contains("-h") {
            self = .help(found)
            return
        }
        let parsed: CommandLineArguments
        do {
            parsed = try CommandLineArguments(
                rest, command: "authctl \(name)", options: found.options,
                stopAtFirstPositional: found == AccountCommand.self || found == SocketCommand.self || found == CurlCommand.self)
        } catch {
            // `authctl exec work ls -l`: '-l' is the program's, but without `--` authctl reads it as its own.
            if found == ExecCommand.self, !rest.contains("--"), rest.filter({ !$0.hasPrefix("-") }).count > 1 {
                throw UsageError(
                    "'authctl exec' needs '--' before the command (\(error.message)): authctl exec NAME [OPTIONS] -- CMD [ARGS...]"
                )
            }
            throw error
        }
        self = .run(found, parsed, global: global)
    }
}
