import BrokerProtocol

/// `authctl logout NAME`.
enum LogoutCommand: Command {
    static let name = "logout"
    static let summary = "revoke and delete an account's tokens"
    static let help = """
        usage: authctl logout NAME

        Revokes the account's tokens at the provider (best effort, reported), deletes them
        locally, and prints the provider's end-session URL when it has one (open it to end
        the browser session too). The account's configuration stays; sign in again with
        `authctl login NAME`.
        """
    static let options: [CommandLineArguments.Option] = []

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        let account = try requireAccountName(arguments, command: "authctl logout")
        let result = try context.client.call(.logout(account: try context.checked(account)), body: EmptyObject())
        Output.note(
            result.revoked
                ? "Signed out of '\(account)': tokens revoked at the provider and deleted."
                : "Signed out of '\(account)': tokens deleted; not revoked (\(result.revocationNote ?? "no reason given")).")
        if let url = result.endSessionURL {
            Output.note("To end the browser session too, open:")
            Output.line(url)
        }
        return ExitCode.success
    }
}
