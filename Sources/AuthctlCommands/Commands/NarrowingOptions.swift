import BrokerProtocol

/// `--scope S… --resource URI… --audience A`, the same on `token`, `exec`, `header`,
/// `kube-credential` and `git-credential` (per URL prefix through git's per-URL helper config):
/// a token narrower than the account's (`TokenNarrowing`), checked here before the daemon sees it.
enum NarrowingOptions {
    static let options: [CommandLineArguments.Option] = [.repeated("--scope"), .repeated("--resource"), .value("--audience")]

    /// The help lines every command that takes them shows.
    static let help = """
          --scope S          a narrower token: only these scopes of the account's grant (repeatable;
                             the account needs --allow-narrowing or a preset that allows it)
          --resource URI     a token for this resource (RFC 8707; Entra: URI/.default; repeatable;
                             the account must list it: account update --allow-resource URI)
          --audience A       a token for this audience (Auth0; account update --allow-audience A)
        """

    /// The request the options make; `.none` when none is given.
    static func narrowing(_ arguments: CommandLineArguments) throws(UsageError) -> TokenNarrowing {
        // `--scope "a b"` and `--scope a --scope b` mean the same, like the query's `scope`.
        let scopes = arguments.all("--scope").flatMap { $0.split(separator: " ").map(String.init) }
        do {
            return try TokenNarrowing(
                scopes: scopes, resources: arguments.all("--resource"), audience: arguments.value("--audience"))
        } catch {
            throw UsageError(error.description)
        }
    }
}
