import BrokerProtocol

/// `authctl token NAME [--min-ttl SECONDS] [--id-token] [--json]`: the hot path scripts call in loops
/// (`--id-token` never reaches the Embedded front: it execs this full CLI for it).
enum TokenCommand: Command {
    static let name = "token"
    static let summary = "print an access token for an account"
    static let help = """
        usage: authctl token NAME [--min-ttl SECONDS] [--scope S]... [--resource URI]... [--audience A] [--json]
               authctl token NAME --id-token [--min-ttl SECONDS] [--json]

        Prints the account's current access token and a newline on stdout, nothing else.
        Without --min-ttl the daemon answers from memory while the token is valid and outside
        its refresh margin (no network). With --min-ttl it refreshes first when less than
        SECONDS remain, unless the token is brand new (then it is returned as is).

        options:
          --min-ttl SECONDS  the token must stay valid at least this long (0-86400)
        \(NarrowingOptions.help)
          --id-token         print the OpenID Connect ID token of the last login or refresh
                             instead (refreshed first when --min-ttl asks for more than it has)
          --json             print {"access_token","token_type","expires_at","scope"} (scope: as granted);
                             with --id-token {"id_token","expires_at"}

        exit codes: 0 ok, 1 unknown account, 69 daemon not running,
                    75 provider unreachable and no valid token, 77 login required
        """
    static let options: [CommandLineArguments.Option] =
        [.value("--min-ttl"), .flag("--id-token"), .flag("--json")] + NarrowingOptions.options

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        let account = try requireAccountName(arguments, command: "authctl token")
        let endpoint = APIEndpoint.token(account: try context.checked(account))
        let query =
            try arguments.integer("--min-ttl", in: APIQueryParameter.minTTL.range).map { [APIQueryParameter.minTTL: $0] } ?? [:]
        let narrowing = try NarrowingOptions.narrowing(arguments)
        if arguments.has("--id-token") {
            guard narrowing.isEmpty else { throw UsageError("--id-token takes no --scope, --resource or --audience") }
            let grant = try context.client.call(.idToken(account: try context.checked(account)), query: query)
            Output.line(arguments.has("--json") ? CommandContext.json(grant) : grant.idToken)
        } else if arguments.has("--json") {
            let grant = try context.client.call(endpoint, query: query, narrowing: narrowing)
            Output.line(CommandContext.json(grant))
        } else {
            let token = try context.client.text(endpoint, query: query, narrowing: narrowing)
            Output.line(token)
        }
        return ExitCode.success
    }
}
