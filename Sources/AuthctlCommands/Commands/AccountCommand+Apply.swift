import BrokerProtocol

/// `authctl account apply FILE.json|- [--dry-run] [--prune] [--code CODE]`: make the daemon's
/// accounts match a file, all or nothing.
///
/// 1. The whole file is checked (`AccountsFile`: syntax, unknown keys, types, names, secret files),
///    then every entry is checked by the daemon without changing anything (`dry_run=1`, discovery
///    included), which also says whether an update keeps the tokens or signs the account out: that
///    is the plan.
///    `--dry-run` prints it and stops.
/// 2. The plan runs in an order that keeps what cannot be undone last: additions, updates that keep
///    the tokens, updates that sign out, removals. A step that fails stops the run, and what was
///    done is undone in reverse (added accounts removed, updated ones given their old configuration
///    back); what cannot be undone — deleted tokens, a removed account, a replaced client secret —
///    is said, one line each.
///
/// Accounts the file does not list are removed only with `--prune` (a file that lost an entry by
/// mistake must not sign anyone out); without it they are listed as `unlisted`.
extension AccountCommand {
    static let applyOptions: [CommandLineArguments.Option] = [.flag("--dry-run"), .flag("--prune"), ConfirmationPrompt.option]

    static func apply(_ arguments: CommandLineArguments, _ context: CommandContext) throws -> Int32 {
        guard arguments.positionals.count == 1, let path = arguments.positionals.first else {
            throw UsageError("'authctl account apply' needs one FILE.json (or - for standard input); see: authctl account --help")
        }
        let code = try ConfirmationPrompt.given(arguments)
        let entries = try AccountsFile.load(path)
        let source = AccountsFile.displayName(path)
        let existing = try context.client.call(.listAccounts).accounts
        let plan: ApplyPlan
        do {
            plan = try ApplyPlan.make(entries, existing: existing, prune: arguments.has("--prune"), source: source, context)
        } catch let failure as ApplyCheckFailure {
            Output.error(failure.message)
            return failure.exitCode
        }
        if arguments.has("--dry-run") {
            let lines = plan.lines(done: false)
            if !lines.isEmpty { Output.line(lines.joined(separator: "\n")) }
            plan.noteUnlisted(source: source)
            return ExitCode.success
        }
        var run = ApplyRun(plan: plan, code: code, context: context)
        do {
            try run.perform()
        } catch {
            return run.rollBack(after: error, source: source)
        }
        let lines = plan.lines(done: true, signedOut: run.signedOut)
        if !lines.isEmpty { Output.line(lines.joined(separator: "\n")) }
        plan.noteUnlisted(source: source)
        return ExitCode.success
    }
}

/// What `apply` will do to each account, checked by the daemon before anything changes.
struct ApplyPlan {
    enum Action: Equatable {
        case add, unchanged, remove, unlisted
        /// An update; `signsOut`: the daemon said it deletes the account's tokens (or pending login);
        /// `tokens`: the account has tokens now (an update of one without keeps nothing, loses nothing).
        case update(signsOut: Bool, tokens: Bool)
    }

    struct Step {
        var name: String
        var action: Action
        var entry: AccountsFile.Entry?
        /// The configuration the daemon has (updates, removals): what a rollback puts back.
        var old: AccountConfiguration?
    }

    /// In the file's order, then the accounts it does not list.
    var steps: [Step]

    static func make(
        _ entries: [AccountsFile.Entry], existing: [AccountStatus], prune: Bool, source: String, _ context: CommandContext
    ) throws -> ApplyPlan {
        var steps: [Step] = []
        for entry in entries {
            let old = existing.first { $0.name == entry.name }
            do {
                if let old {
                    let result = try context.client.call(
                        .updateAccount(try context.checked(entry.name)), body: entry.configuration, query: [.dryRun: 1])
                    let signsOut = result.outcome == .signedOut
                    let action: Action =
                        result.outcome == .unchanged
                        ? .unchanged : .update(signsOut: signsOut, tokens: signsOut || old.expiresAt != nil)
                    steps.append(Step(name: entry.name, action: action, entry: entry, old: old.configuration))
                } else {
                    _ = try context.client.call(.addAccount, body: entry.configuration, query: [.dryRun: 1])
                    steps.append(Step(name: entry.name, action: .add, entry: entry))
                }
            } catch let error as BrokerClientError {
                throw ApplyCheckFailure(
                    message:
                        "\(source):\(entry.position): account '\(entry.name)': \(sentence(error.description)) Nothing was changed.",
                    exitCode: error.exitCode)
            }
        }
        for account in existing where !entries.contains(where: { $0.name == account.name }) {
            steps.append(Step(name: account.name, action: prune ? .remove : .unlisted, old: account.configuration))
        }
        return ApplyPlan(steps: steps)
    }

    /// `text` ending in a full stop, so that another sentence can follow it.
    static func sentence(_ text: String) -> String { text.hasSuffix(".") ? text : text + "." }

    /// The steps in the order they run: what cannot be undone last.
    var runOrder: [Step] {
        func rank(_ action: Action) -> Int {
            switch action {
            case .add: 0
            case .update(signsOut: false, _): 1
            case .update(signsOut: true, _): 2
            case .remove: 3
            case .unchanged, .unlisted: 4
            }
        }
        return steps.filter { rank($0.action) < 4 }.enumerated().sorted { (rank($0.1.action), $0.0) < (rank($1.1.action), $1.0) }
            .map(\.1)
    }

    /// One line per account: the plan (`add work`, `update home (signs out)`) or, once done, what
    /// happened (`added work`, `signed-out home`); `signedOut`: the accounts the daemon signed out.
    func lines(done: Bool, signedOut: Set<String> = []) -> [String] {
        steps.map { step in
            switch (step.action, done) {
            case (.add, false): "add \(step.name)"
            case (.add, true): "added \(step.name)"
            case (.update(let signsOut, let tokens), false):
                "update \(step.name) (\(signsOut ? "signs out" : tokens ? "keeps tokens" : "no tokens"))"
            case (.update, true): "\(signedOut.contains(step.name) ? "signed-out" : "updated") \(step.name)"
            case (.remove, false): "remove \(step.name)"
            case (.remove, true): "removed \(step.name)"
            case (.unchanged, _): "unchanged \(step.name)"
            case (.unlisted, _): "unlisted \(step.name)"
            }
        }
    }

    /// On stderr: the accounts kept because the file does not list them, and how to remove them.
    func noteUnlisted(source: String) {
        let names = steps.filter { $0.action == .unlisted }.map { "'\($0.name)'" }
        guard !names.isEmpty else { return }
        Output.note(
            "Not in \(source), kept: \(names.joined(separator: ", ")). To remove accounts the file does not list, run apply with --prune."
        )
    }
}

/// A check before anything changed failed: the message names the entry; nothing is rolled back.
struct ApplyCheckFailure: Error {
    var message: String
    var exitCode: Int32
}

/// The running plan: what has been done, so that a failure can undo it.
struct ApplyRun {
    let plan: ApplyPlan
    let code: String?
    let context: CommandContext
    private(set) var done: [ApplyPlan.Step] = []
    private(set) var signedOut: Set<String> = []
    private(set) var failed: ApplyPlan.Step?

    init(plan: ApplyPlan, code: String?, context: CommandContext) {
        self.plan = plan
        self.code = code
        self.context = context
    }

    mutating func perform() throws {
        for step in plan.runOrder {
            failed = step
            let name = try context.checked(step.name)
            switch step.action {
            case .add:
                _ = try context.client.call(.addAccount, body: step.entry!.configuration)
            case .update:
                let result = try AccountCommand.update(step.entry!.configuration, code: code, context)
                if result.outcome == .signedOut { signedOut.insert(step.name) }
            case .remove:
                _ = try context.client.call(.removeAccount(name))
            case .unchanged, .unlisted:
                break
            }
            done.append(step)
        }
        failed = nil
    }

    /// Says which step failed and why, undoes what was done (newest first) and says what could not
    /// be undone; answers the failure's exit code.
    func rollBack(after error: any Error, source: String) -> Int32 {
        let reason = (error as? BrokerClientError)?.description ?? (error as? UsageError)?.message ?? "\(error)"
        let place = failed.flatMap { $0.entry.map { " (\(source):\($0.position))" } } ?? ""
        Output.error("apply stopped at account '\(failed?.name ?? "?")'\(place): \(reason)")
        var notes: [String] = []
        for step in done.reversed() { notes += undo(step) }
        Output.note(notes.isEmpty ? "Nothing had been changed." : notes.joined(separator: "\n"))
        return (error as? BrokerClientError)?.exitCode ?? (error is UsageError ? ExitCode.usage : ExitCode.failure)
    }

    /// Undoes one step; the lines say what was undone and what could not be.
    private func undo(_ step: ApplyPlan.Step) -> [String] {
        do {
            switch step.action {
            case .add:
                _ = try context.client.call(.removeAccount(try context.checked(step.name)))
                return ["rolled back: removed the added account '\(step.name)'"]
            case .update:
                guard let old = step.old else {
                    return ["not rolled back: the old configuration of '\(step.name)' was not readable"]
                }
                _ = try context.client.call(
                    .updateAccount(try context.checked(step.name)), body: old, query: [.keepClientSecret: 1])
                var lines = ["rolled back: '\(step.name)' has its old configuration again"]
                if signedOut.contains(step.name) {
                    lines.append(
                        "not rolled back: '\(step.name)' stays signed out (its tokens were deleted); sign in again with: authctl login \(step.name)"
                    )
                }
                if step.entry?.clientSecretFile != nil {
                    lines.append(
                        "not rolled back: '\(step.name)' keeps the client secret from the file (the daemon never returns the old one); if it differs, set the old one with: authctl account update \(step.name) --client-secret-file FILE"
                    )
                }
                return lines
            case .remove:
                return [
                    "not rolled back: '\(step.name)' was removed with its tokens; add it again (authctl account add, or apply a file that lists it)"
                ]
            case .unchanged, .unlisted:
                return []
            }
        } catch {
            let reason = (error as? BrokerClientError)?.description ?? "\(error)"
            return ["not rolled back: '\(step.name)': \(reason)"]
        }
    }
}
