import BrokerProtocol
@preconcurrency import Glibc

/// `authctl logout NAME [--json]`.
enum LogoutCommand: Command {
    static let name = "logout"
    static let summary = "revoke and delete an account's tokens"
    static let help = """
        usage: authctl logout NAME [--json]

        Revokes the account's tokens at the provider (best effort, reported), deletes them
        locally, and prints the provider's end-session URL when it has one (open it to end
        the browser session too). The account's configuration stays; sign in again with
        `authctl login NAME`. On a terminal the URL is printed without its id_token_hint
        (the ID token: too long to read, and a credential on the screen); the provider may
        then ask you to confirm. Piped, or with --json, the URL is printed whole.

        options:
          --json   print {"revoked","revocation_note","end_session_url"}
        """
    static let options: [CommandLineArguments.Option] = [.flag("--json")]

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        let account = try requireAccountName(arguments, command: "authctl logout")
        let result = try context.client.call(.logout(account: try context.checked(account)), body: EmptyObject())
        if arguments.has("--json") {
            Output.line(CommandContext.json(result))
            return ExitCode.success
        }
        Output.note(
            result.revoked
                ? "Signed out of '\(account)': tokens revoked at the provider and deleted."
                : "Signed out of '\(account)': tokens deleted; not revoked (\(result.revocationNote ?? "no reason given")).")
        if let url = result.endSessionURL {
            Output.note("To end the browser session too, open:")
            Output.line(isatty(STDOUT_FILENO) == 1 ? withoutIDTokenHint(url) : url)
        }
        return ExitCode.success
    }

    /// `url` with its `id_token_hint` query parameter left out (every other parameter kept, in order).
    static func withoutIDTokenHint(_ url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let kept = url[url.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("id_token_hint=") }
        return String(url[..<question]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }
}
