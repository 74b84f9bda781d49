import BrokerProtocol

/// `authctl status [NAME] [--json]`.
enum StatusCommand: Command {
    static let name = "status"
    static let summary = "show the state of every account (or one)"
    static let help = """
        usage: authctl status [NAME] [--json]

        Shows each account's state (logged_out, pending_login, active, refreshing,
        login_required, error), when its token expires, the last refresh, the last error
        and the signed-in subject. Times are RFC 3339 UTC.

        options:
          --json   print {"accounts":[{"name","state","expires_at","last_refresh","last_error","subject"}]}
        """
    static let options: [CommandLineArguments.Option] = [.flag("--json")]

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.count <= 1 else { throw UsageError("'authctl status' takes at most one account name") }
        var list = try context.client.call(.status)
        if let name = arguments.positionals.first {
            list.accounts = list.accounts.filter { $0.name == name }
            guard !list.accounts.isEmpty else {
                Output.error("no account named '\(name)'. See: authctl account list")
                return ExitCode.failure
            }
        }
        if arguments.has("--json") {
            Output.line(CommandContext.json(list))
        } else {
            printTable(list.accounts)
        }
        return ExitCode.success
    }

    static func printTable(_ accounts: [AccountStatus]) {
        guard !accounts.isEmpty else {
            Output.note("No accounts yet. Add one with: authctl account add NAME --issuer URL --client-id ID")
            return
        }
        let rows = [["ACCOUNT", "STATE", "EXPIRES", "SUBJECT", "LAST ERROR"]]
            + accounts.map { account in
                [account.name, account.state.rawValue, account.expiresAt ?? "-", account.subject ?? "-",
                 account.lastError.map { "\($0.code.rawValue): \($0.message)" } ?? "-"]
            }
        Output.line(Table.render(rows))
    }
}

/// Left-aligned columns separated by two spaces.
enum Table {
    static func render(_ rows: [[String]]) -> String {
        let widths = (0..<(rows.first?.count ?? 0)).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
