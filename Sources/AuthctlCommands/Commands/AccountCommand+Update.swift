import BrokerProtocol

/// `authctl account update NAME` and the caller policy flags it shares with `account add`:
/// `--allow-exe PATH` (repeatable), `--confirm`, `--allow-other-namespaces` (docs/guide.md, "Caller policy").
extension AccountCommand {
    static let callerPolicyOptions: [CommandLineArguments.Option] = [
        .repeated("--allow-exe"), .flag("--confirm"), .flag("--allow-other-namespaces"),
        .repeated("--allow-resource"), .repeated("--allow-audience"),
    ]
    /// Every field option of `account add`, the client secret, a `--no-*` for each optional field,
    /// `--yes` and the one-time code.
    static let updateOptions: [CommandLineArguments.Option] =
        fieldOptions + [.value("--client-secret-file")]
        + clearingOptions.map { .flag($0.flag) } + [.flag("--yes"), ConfirmationPrompt.option]

    /// Sets `--allow-exe` and `--confirm` on `configuration` when given; refused here as the daemon would refuse them.
    static func applyCallerPolicy(_ arguments: CommandLineArguments, to configuration: inout AccountConfiguration)
        throws(UsageError)
    {
        let executables = arguments.all("--allow-exe")
        if !executables.isEmpty {
            if let problem = CallerExecutable.problem(with: executables) { throw UsageError("--allow-exe: \(problem)") }
            configuration.allowExe = executables
        }
        if arguments.has("--confirm") { configuration.confirmCallers = true }
        if arguments.has("--allow-other-namespaces") { configuration.allowOtherNamespaces = true }
        let resources = arguments.all("--allow-resource")
        if !resources.isEmpty {
            for resource in resources {
                do throws(NarrowingError) {
                    _ = try TokenNarrowing(scopes: [], resources: [resource], audience: nil)
                } catch {
                    throw UsageError("--allow-resource: \(error)")
                }
            }
            configuration.narrowResources = resources
        }
        let audiences = arguments.all("--allow-audience")
        if !audiences.isEmpty {
            for audience in audiences {
                do throws(NarrowingError) {
                    _ = try TokenNarrowing(scopes: [], resources: [], audience: audience)
                } catch {
                    throw UsageError("--allow-audience: \(error)")
                }
            }
            configuration.narrowAudiences = audiences
        }
    }

    /// `PUT`s `configuration` with the one-time code when given; loosening the policy of an account
    /// that has one is answered `confirmation_required` (the daemon sends a code) and, on a
    /// terminal, asked for. `query`: `keep_client_secret`, `dry_run` (`account update`, `apply`).
    static func update(
        _ configuration: AccountConfiguration, code: String?, query: [APIQueryParameter: Int] = [:], _ context: CommandContext
    ) throws -> AccountUpdateResult {
        try ConfirmationPrompt.confirming(code) { code in
            try context.client.call(
                .updateAccount(try context.checked(configuration.name)), body: configuration, query: query,
                headers: code.map { [(ConfirmationCode.header, $0)] } ?? [])
        }
    }

    /// Reads the account's configuration, changes the fields the options name and writes it back
    /// (`PUT ?keep_client_secret=1`: the sealed secret stays unless --client-secret-file or
    /// --no-client-secret). A change that would sign the account out (asked of the daemon first,
    /// `dry_run=1`) is said before it is made: asked on a terminal, refused elsewhere without --yes.
    static func update(_ arguments: CommandLineArguments, _ context: CommandContext) throws -> Int32 {
        let account = try context.checked(try requireAccountName(arguments, command: "authctl account update"))
        guard let old = try context.client.call(.account(account)).configuration else {
            throw UsageError("the configuration of '\(account)' cannot be read; set the account up again")
        }
        var configuration = old
        try clearFields(arguments, on: &configuration)
        try setFields(arguments, on: &configuration)
        let keep: [APIQueryParameter: Int] = arguments.has("--no-client-secret") ? [:] : [.keepClientSecret: 1]
        let planned = try context.client.call(
            .updateAccount(account), body: configuration, query: keep.merging([.dryRun: 1]) { $1 })
        if planned.outcome == .unchanged {
            Output.note("'\(account)' is unchanged.")
            return ExitCode.success
        }
        if planned.outcome == .signedOut {
            var changed = configuration.changedKeys(from: old).filter { !AccountConfiguration.tokenNeutralKeys.contains($0) }
            if configuration.clientSecret != nil || arguments.has("--no-client-secret") { changed.append("client_secret") }
            let what =
                "\(changed.isEmpty ? "this change" : "changing " + changed.joined(separator: ", ")) signs '\(account)' out (its tokens are deleted; sign in again with: authctl login \(account))"
            guard
                try ConfirmationPrompt.agreed(
                    "authctl: \(what). Continue? [y/N] ", yes: arguments.has("--yes"),
                    refusal: "\(what); nothing was changed: run again with --yes to do it")
            else {
                Output.note("Nothing was changed.")
                return ExitCode.failure
            }
        }
        let result = try update(configuration, code: try ConfirmationPrompt.given(arguments), query: keep, context)
        switch result.outcome {
        case .unchanged: Output.note("'\(account)' is unchanged.")
        case .updated: Output.note("Updated '\(account)'; its tokens are kept.")
        case .signedOut: Output.note("Updated '\(account)' and signed it out. Sign in again with: authctl login \(account)")
        }
        return ExitCode.success
    }
}
