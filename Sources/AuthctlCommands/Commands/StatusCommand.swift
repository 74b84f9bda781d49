import BrokerProtocol
@preconcurrency import Glibc
import WireFormats

/// `authctl status [NAME] [--json]`: is everything fine? Exits 1 when an account shown needs
/// attention (not with `--json`: scripts reading it judge the states themselves).
enum StatusCommand: Command {
    static let name = "status"
    static let summary = "show the state of every account (or one)"
    static let help = """
        usage: authctl status [NAME] [--json]

        Shows each account's state (logged_out, pending_login, active, refreshing,
        login_required, error), how long its token has left ("expired 3m ago" when it
        has none), when the last successful refresh was, the granted scopes and the
        last error's code, in 80 columns. With NAME, one account in full: the
        times in RFC 3339 UTC too, the subject and the last error's sentence.

        options:
          --json   print {"accounts":[{"name","state","expires_at","last_refresh","last_error",
                   "subject","scope"}]} (times RFC 3339 UTC, null when unknown)

        exit codes: 0 every account shown is fine (always with --json), 1 an account
                    shown needs attention (logged out, login required, error, or its
                    token expired) or no account NAME, 69 daemon not running
        """
    static let options: [CommandLineArguments.Option] = [.flag("--json")]

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.count <= 1 else { throw UsageError("'authctl status' takes at most one account name") }
        var list = try context.client.call(.status)
        let now = Double(time(nil))
        if let name = arguments.positionals.first {
            list.accounts = list.accounts.filter { $0.name == name }
            guard !list.accounts.isEmpty else {
                Output.error("no account named '\(name)'. See: authctl account list")
                return ExitCode.failure
            }
        }
        if arguments.has("--json") {
            // JSON is read by scripts that judge the states themselves: exit 0, as before.
            Output.line(CommandContext.json(list))
            return ExitCode.success
        } else if arguments.positionals.isEmpty {
            printTable(list.accounts, now: now)
        } else {
            Output.line(StatusView.detail(list.accounts[0], now: now))
        }
        let attention = list.accounts.filter { StatusView.needsAttention($0, now: now) }
        if !attention.isEmpty {
            Output.note(
                "needs attention: " + attention.map(\.name).joined(separator: ", ")
                    + (attention.count == 1 && attention[0].state != .error
                        ? ". Sign in with: authctl login \(attention[0].name)" : ". See: authctl status NAME"))
        }
        return attention.isEmpty ? ExitCode.success : ExitCode.failure
    }

    static func printTable(_ accounts: [AccountStatus], now: Double = Double(time(nil))) {
        guard !accounts.isEmpty else {
            Output.note("No accounts yet. Add one with: authctl account add NAME --issuer URL --client-id ID")
            return
        }
        Output.line(StatusView.table(accounts, now: now))
    }
}

/// How `authctl status` shows accounts to people: relative times, short error codes, 80 columns.
enum StatusView {
    static let width = 80

    /// Logged out, login required, failed, or holding an expired token (and not refreshing it).
    static func needsAttention(_ account: AccountStatus, now: Double) -> Bool {
        switch account.state {
        case .loggedOut, .loginRequired, .error: return true
        case .refreshing, .pendingLogin: return false
        case .active: return account.expiresAt.flatMap(RFC3339.parse).map { $0 <= now } ?? false
        }
    }

    /// "in 42m", "expired 3m ago", or "-".
    static func expiry(_ account: AccountStatus, now: Double) -> String {
        guard let at = account.expiresAt.flatMap(RFC3339.parse) else { return "-" }
        return at > now ? "in " + duration(at - now) : "expired " + duration(now - at) + " ago"
    }

    /// "3m ago", or "-" when there was none.
    static func ago(_ time: String?, now: Double) -> String {
        guard let at = time.flatMap(RFC3339.parse) else { return "-" }
        return duration(max(0, now - at)) + " ago"
    }

    /// 42s, 5m, 2h05m, 3d.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.down))
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m" }
        if s < 86_400 {
            let minutes = (s % 3600) / 60
            return "\(s / 3600)h" + (minutes < 10 ? "0" : "") + "\(minutes)m"
        }
        return "\(s / 86_400)d"
    }

    /// ACCOUNT STATE EXPIRES REFRESHED ERROR SCOPES; the scopes are cut to fit `width`.
    static func table(_ accounts: [AccountStatus], now: Double) -> String {
        let rows =
            [["ACCOUNT", "STATE", "EXPIRES", "REFRESHED", "ERROR", "SCOPES"]]
            + accounts.map { account in
                [
                    account.name, account.state.rawValue, expiry(account, now: now), ago(account.lastRefresh, now: now),
                    account.lastError?.code.rawValue ?? (account.stepUpScope == nil ? "-" : "step_up"), account.scope ?? "-",
                ]
            }
        let lead = (0..<5).map { column in rows.map { $0[column].count }.max() ?? 0 }.reduce(0) { $0 + $1 + 2 }
        let room = max(8, width - lead)
        let fitted = rows.map { row in Array(row.dropLast()) + [cut(row[5], to: room)] }
        return Table.render(fitted)
    }

    static func cut(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }

    /// One account in full, a line per field.
    static func detail(_ account: AccountStatus, now: Double) -> String {
        var lines: [(String, String)] = [("account", account.name), ("state", account.state.rawValue)]
        lines.append(("expires", account.expiresAt.map { expiry(account, now: now) + " (\($0))" } ?? "-"))
        lines.append(("last refresh", account.lastRefresh.map { ago($0, now: now) + " (\($0))" } ?? "-"))
        lines.append(("scopes", account.scope ?? "-"))
        lines.append(("subject", account.subject ?? "-"))
        lines.append(("last error", account.lastError.map { "\($0.code.rawValue): \($0.message)" } ?? "-"))
        if let stepUp = account.stepUpScope {
            lines.append(("step-up", "a resource server needs \(stepUp); log in with: authctl login \(account.name)"))
        }
        return lines.map { label, value in
            label + ":" + String(repeating: " ", count: 14 - label.count) + value
        }.joined(separator: "\n")
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
