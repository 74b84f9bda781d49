import BrokerProtocol

/// `authctl account update NAME` and the caller policy flags it shares with `account add`:
/// `--allow-exe PATH` (repeatable), `--confirm`, `--allow-other-namespaces` (docs/guide.md, "Caller policy").
extension AccountCommand {
    static let callerPolicyOptions: [CommandLineArguments.Option] = [
        .repeated("--allow-exe"), .flag("--confirm"), .flag("--allow-other-namespaces"),
        .repeated("--allow-resource"), .repeated("--allow-audience"),
    ]
    static let updateOptions: [CommandLineArguments.Option] = callerPolicyOptions + [
        .flag("--no-allow-exe"), .flag("--no-confirm"), .flag("--no-allow-other-namespaces"),
        .flag("--no-allow-resource"), .flag("--no-allow-audience"), .value("--client-secret-file"), ConfirmationPrompt.option,
    ]

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

    /// Reads the account's configuration, changes the caller policy and writes it back (`PUT`). The
    /// daemon never returns the client secret, so a confidential client needs --client-secret-file
    /// again: without it the update would remove the secret (and sign the account out).
    /// `PUT` with the one-time code when given; loosening the policy of an account that has one is
    /// answered `confirmation_required` (the daemon sends a code) and, on a terminal, asked for.
    static func update(_ configuration: AccountConfiguration, code: String?, _ context: CommandContext) throws
        -> AccountUpdateResult
    {
        try ConfirmationPrompt.confirming(code) { code in
            try context.client.call(
                .updateAccount(try context.checked(configuration.name)), body: configuration,
                headers: code.map { [(ConfirmationCode.header, $0)] } ?? [])
        }
    }

    static func update(_ arguments: CommandLineArguments, _ context: CommandContext) throws -> Int32 {
        let account = try context.checked(try requireAccountName(arguments, command: "authctl account update"))
        guard var configuration = try context.client.call(.account(account)).configuration else {
            throw UsageError("the configuration of '\(account)' cannot be read; set the account up again")
        }
        if arguments.has("--no-allow-exe") {
            guard arguments.all("--allow-exe").isEmpty else { throw UsageError("--no-allow-exe and --allow-exe conflict") }
            configuration.allowExe = nil
        }
        if arguments.has("--no-confirm") {
            guard !arguments.has("--confirm") else { throw UsageError("--no-confirm and --confirm conflict") }
            configuration.confirmCallers = nil
        }
        if arguments.has("--no-allow-other-namespaces") {
            guard !arguments.has("--allow-other-namespaces") else {
                throw UsageError("--no-allow-other-namespaces and --allow-other-namespaces conflict")
            }
            configuration.allowOtherNamespaces = nil
        }
        for (flag, list) in [("--allow-resource", \AccountConfiguration.narrowResources), ("--allow-audience", \.narrowAudiences)]
        where arguments.has("--no-" + flag.dropFirst(2)) {
            guard arguments.all(flag).isEmpty else { throw UsageError("--no-\(flag.dropFirst(2)) and \(flag) conflict") }
            configuration[keyPath: list] = nil
        }
        try applyCallerPolicy(arguments, to: &configuration)
        if let file = arguments.value("--client-secret-file") { configuration.clientSecret = try SecretFile.read(file) }
        let result = try update(configuration, code: try ConfirmationPrompt.given(arguments), context)
        switch result.outcome {
        case .unchanged: Output.note("'\(account)' is unchanged.")
        case .updated: Output.note("Updated '\(account)'; its tokens are kept.")
        case .signedOut: Output.note("Updated '\(account)' and signed it out. Sign in again with: authctl login \(account)")
        }
        return ExitCode.success
    }
}
