import BrokerProtocol

/// One `authctl` subcommand: its help text, accepted options and behaviour.
/// Commands return an exit code (see `ExitCode`); they print results on stdout and
/// problems on stderr, one line each.
protocol Command {
    static var name: String { get }
    /// One line for `authctl help`.
    static var summary: String { get }
    /// The full `authctl help NAME` text, starting with the usage line.
    static var help: String { get }
    static var options: [CommandLineArguments.Option] { get }
    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32
}

/// The subcommands, in the order `authctl help` lists them.
let commands: [any Command.Type] = [
    LoginCommand.self, CallbackCommand.self, LogoutCommand.self, TokenCommand.self, RefreshCommand.self, StatusCommand.self,
    AccountCommand.self,
    SocketCommand.self, ApproveCommand.self, ApprovalsCommand.self, ExecCommand.self, HeaderCommand.self, CurlCommand.self,
    MCPCommand.self, KubeCredentialCommand.self, GitCredentialCommand.self, RekeyCommand.self, PingCommand.self,
    VersionCommand.self, HelpCommand.self,
]

func command(named name: String) -> (any Command.Type)? {
    commands.first { $0.name == name }
}
