import BrokerProtocol

/// `authctl socket add|list|remove`: restricted sockets for SSH forwards and containers.
enum SocketCommand: Command {
    static let name = "socket"
    static let summary = "add, list or remove restricted sockets (token only, for SSH and containers)"
    static let help = """
        usage: authctl socket add NAME --account A [--account B ...] [--narrowing SPEC ...] [--ttl DURATION]
                                  [--persist]
               authctl socket list [--json]
               authctl socket remove NAME

        A restricted socket is an extra socket, $XDG_RUNTIME_DIR/authbroker/restricted/UID/NAME.sock
        (its path is printed), that serves only `authctl token` (and `authctl ping`) for the listed
        accounts — their plain tokens, and narrowed ones only as named with --narrowing.
        Everything else — status, account management, login, logout, ID tokens, metrics, other
        accounts — is refused with 403 forbidden. Forward it over SSH or
        bind-mount it into a container and set AUTHBROKER_SOCKET on the other side
        (docs/remote.md). The other side can get tokens for the listed accounts until the socket
        is gone; nothing else.

        add options:
          --account A      an account the socket serves (repeatable, at least one)
          --narrowing SPEC a narrowed token the socket also serves (repeatable), exactly as
                           asked: 'scope=S resource=URI audience=A' fields, e.g.
                           'scope=openid resource=https://api.example.com/'; any other
                           narrowed request is refused (403). The account must allow it too
                           (--allow-narrowing, --allow-resource, --allow-audience)
          --ttl DURATION   remove the socket after this long: 90s, 15m, 8h, 2d or seconds
                           (1 second to 30 days; default: until removed or the daemon stops)
          --persist        keep it across daemon restarts (stored in the vault; the ttl
                           stays an absolute expiry)

        NAME: 1 to 32 lower-case letters, digits, '-' and '_', starting with a letter or digit;
        names are per user. At most 16 sockets per user (128 for the whole daemon).
        The socket goes at its ttl, at `authctl socket remove`, and when the daemon stops
        (unless --persist). Removing an account removes it from every socket's list.
        """
    static let addOptions: [CommandLineArguments.Option] = [
        .repeated("--account"), .value("--ttl"), .flag("--persist"), .repeated("--narrowing"),
    ]
    // Parsed per subcommand in `run`.
    static let options: [CommandLineArguments.Option] = []

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        guard let sub = arguments.positionals.first else {
            throw UsageError("'authctl socket' needs a subcommand: add, list or remove")
        }
        let rest = Array(arguments.positionals.dropFirst())
        switch sub {
        case "add":
            return try add(CommandLineArguments(rest, command: "authctl socket add", options: addOptions), context)
        case "list":
            return try list(CommandLineArguments(rest, command: "authctl socket list", options: [.flag("--json")]), context)
        case "remove":
            let parsed = try CommandLineArguments(rest, command: "authctl socket remove", options: [])
            let name = try socketName(parsed, command: "authctl socket remove")
            _ = try context.client.call(.removeSocket(name))
            Output.note("Removed restricted socket '\(name)'.")
            return ExitCode.success
        default:
            throw UsageError("unknown subcommand 'socket \(sub)'; see: authctl socket --help")
        }
    }

    static func add(_ arguments: CommandLineArguments, _ context: CommandContext) throws -> Int32 {
        let name = try socketName(arguments, command: "authctl socket add")
        let accounts = arguments.all("--account")
        guard !accounts.isEmpty else { throw UsageError("'authctl socket add' needs --account A (repeatable)") }
        for account in accounts { _ = try context.checked(account) }
        let ttl = try arguments.value("--ttl").map(ttlSeconds)
        let narrowings = arguments.all("--narrowing")
        let request = RestrictedSocketRequest(
            name: name, accounts: accounts, ttlSeconds: ttl, persist: arguments.has("--persist"),
            narrowings: narrowings.isEmpty ? nil : narrowings)
        if let problem = request.problem { throw UsageError(problem) }
        let info = try context.client.call(.addSocket, body: request)
        Output.line(info.path)
        Output.note(
            "Restricted socket '\(name)' serves tokens of \(accounts.joined(separator: ", "))"
                + (info.expiresAt.map { " until \($0)" } ?? " until removed") + ". Use it with AUTHBROKER_SOCKET=\(info.path)")
        return ExitCode.success
    }

    static func list(_ arguments: CommandLineArguments, _ context: CommandContext) throws -> Int32 {
        let list = try context.client.call(.listSockets)
        if arguments.has("--json") {
            Output.line(CommandContext.json(list))
            return ExitCode.success
        }
        guard !list.sockets.isEmpty else {
            // On stderr: stdout stays empty for scripts that count lines.
            Output.note("No restricted sockets. Make one with: authctl socket add NAME --account A")
            return ExitCode.success
        }
        // Tab-separated with one header line; every row has every column ("-" for none).
        Output.line("NAME\tACCOUNTS\tEXPIRES\tPERSIST\tPATH\tNARROWINGS")
        for socket in list.sockets {
            let columns = [
                socket.name, socket.accounts.joined(separator: ","), socket.expiresAt ?? "no ttl", socket.persist ? "yes" : "no",
                socket.path, socket.narrowings.map { $0.joined(separator: "; ") } ?? "-",
            ]
            Output.line(columns.joined(separator: "\t"))
        }
        return ExitCode.success
    }

    private static func socketName(_ arguments: CommandLineArguments, command: String) throws(UsageError) -> String {
        guard arguments.positionals.count == 1 else {
            throw UsageError("'\(command)' needs one socket name; see: authctl socket --help")
        }
        let name = arguments.positionals[0]
        if let problem = RestrictedSocketName.problem(with: name) {
            throw UsageError("invalid socket name '\(name)': \(problem)")
        }
        return name
    }

    /// `90`, `90s`, `15m`, `8h`, `2d`.
    static func ttlSeconds(_ text: String) throws(UsageError) -> Int {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        var digits = Substring(text)
        var unit = 1
        if let last = text.last, let factor = units[last] {
            digits = digits.dropLast()
            unit = factor
        }
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isASCII), let number = Int(digits), number > 0,
            RestrictedSocketRequest.ttlRange.contains(number * unit)
        else {
            throw UsageError("--ttl takes a duration of 1 second to 30 days such as 90s, 15m, 8h or 2d, got '\(text)'")
        }
        return number * unit
    }
}
