import BrokerProtocol
@preconcurrency import Glibc
import WireFormats

/// `authctl refresh NAME [--scope S]...`: a refresh now (`GET …/token?refresh=1`), or a login
/// asking for more scopes when the grant lacks some.
enum RefreshCommand: Command {
    static let name = "refresh"
    static let summary = "refresh an account's token now, or add scopes through a login"
    static let help = """
        usage: authctl refresh NAME [--scope S]... [--no-browser] [--browser CMD] [--timeout SECONDS]

        Refreshes the account's access token now, whatever it has left (a refresh already under
        way is joined; at most one starts per second per account), and says until when the new
        one is valid. Prints nothing on stdout.

        With --scope, the scopes the account's grant lacks are added through a login (as
        `authctl login NAME`: browser, paste, --no-browser…) that asks for the granted and
        configured scopes plus the new ones; authctl says so first. When the grant has them all
        it is a plain refresh. The added scopes last until the next plain `authctl login`; to
        keep them, add them to the account: authctl account update NAME --scopes "…".

        options:
          --scope S          a scope the token must carry (repeatable; "a b" counts as two)
          --no-browser, --browser CMD, --timeout SECONDS
                             for the login --scope may start (see `authctl help login`)

        exit codes: 0 refreshed (or signed in), 1 unknown account, a denied login, or
                    not refreshed (no refresh token, or refreshed less than a second ago),
                    69 daemon not running, 75 provider unreachable, 77 login required
        """
    static let options: [CommandLineArguments.Option] = [
        .repeated("--scope"), .flag("--no-browser"), .value("--browser"), .value("--timeout"),
    ]

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        let account = try context.checked(try requireAccountName(arguments, command: "authctl refresh"))
        let wanted = arguments.all("--scope").flatMap { $0.split(separator: " ").map(String.init) }
        if let bad = wanted.first(where: { !TokenNarrowing.isScopeToken($0) }) {
            throw UsageError("'\(bad)' is not a scope (RFC 6749 §3.3: printable ASCII, no space, quote or backslash)")
        }
        if !wanted.isEmpty {
            let status = try context.client.call(.account(account))
            let granted = (status.scope ?? "").split(separator: " ").map(String.init)
            let missing = unique(wanted).filter { !granted.contains($0) }
            if !missing.isEmpty {
                let asked = unique((status.configuration?.scopes ?? []) + granted + missing)
                Output.note(
                    "'\(account)' was not granted \(missing.joined(separator: " ")): starting a login that asks for "
                        + "\(asked.joined(separator: " ")).")
                return try LoginCommand.run(arguments, context: context, addScopes: asked)
            }
        }
        // Kept to compare, never shown: a refresh that could not happen answers the same token.
        let before = try context.client.call(.token(account: account)).accessToken
        let grant = try context.client.call(.token(account: account), query: [.refresh: 1])
        guard grant.accessToken != before else {
            Output.error(
                "'\(account)' was not refreshed: it holds no refresh token (sign in again with: authctl login "
                    + "\(account)), or it was refreshed less than a second ago.")
            return ExitCode.failure
        }
        let until =
            grant.expiresAt.flatMap(RFC3339.parse).map { at in
                " The new token expires in " + StatusView.duration(max(0, at - Double(time(nil))))
                    + " (\(grant.expiresAt ?? ""))."
            } ?? ""
        Output.note("Refreshed '\(account)'." + until)
        return ExitCode.success
    }

    private static func unique(_ scopes: [String]) -> [String] {
        var seen: Set<String> = []
        return scopes.filter { seen.insert($0).inserted }
    }
}
