import BrokerProtocol

/// Which local programs may receive an account's tokens (`--allow-exe`) and whether each new one
/// must be approved first (`--confirm`), decided by the router before a token or ID token is
/// served — on the synchronous fast path too.
///
/// This narrows accidental and casual use; it is not a sandbox boundary: code running as the same
/// user can ptrace an allowed program or exec it with arguments of its choosing (docs/security.md,
/// "Caller policy").
public struct CallerPolicy: Sendable, Equatable {
    /// Absolute paths, compared byte for byte with `/proc/PID/exe` (`CallerExecutable.matches`);
    /// empty: any program.
    public var allowedExecutables: [String]
    /// Each program must be approved once per daemon boot.
    public var confirm: Bool
    /// Callers in another mount or user namespace than the daemon's are judged too (by the file
    /// they run) rather than refused as undetermined (`--allow-other-namespaces`).
    public var allowOtherNamespaces: Bool

    public init(allowedExecutables: [String], confirm: Bool = false, allowOtherNamespaces: Bool = false) {
        self.allowedExecutables = allowedExecutables
        self.confirm = confirm
        self.allowOtherNamespaces = allowOtherNamespaces
    }

    /// The account's policy, or nil when it has none (every caller of the owner is served;
    /// `allow_other_namespaces` alone makes no policy).
    public init?(_ configuration: AccountConfiguration) {
        let executables = configuration.allowExe ?? []
        let confirm = configuration.confirmCallers ?? false
        guard !executables.isEmpty || confirm else { return nil }
        self.init(
            allowedExecutables: executables, confirm: confirm, allowOtherNamespaces: configuration.allowOtherNamespaces ?? false)
    }

    /// True when going from `old` to `new` may serve a caller `old` refuses, so the change needs the
    /// one-time code (`TokenBroker.updateAccount`). Exactly the tightening changes are free: with
    /// `confirm` kept or turned on, an allow-list that becomes non-empty or keeps only entries it
    /// had (reordered or fewer). An account without a policy serves every caller already.
    static func widens(from old: CallerPolicy?, to new: CallerPolicy?) -> Bool {
        guard let old else { return false }
        guard let new else { return true }
        if old.confirm, !new.confirm { return true }
        if old.allowedExecutables.isEmpty { return false }
        if new.allowedExecutables.isEmpty { return true }
        return !Set(new.allowedExecutables).isSubset(of: old.allowedExecutables)
    }

    /// What to do with a caller running `executable`, given this boot's `approval` of it (nil: none yet).
    enum Verdict: Equatable {
        case serve
        case refuse(WireError)
        case askApproval
    }

    /// `via`: for an adapter, the ancestor it runs for (`speaker`); nil for any other program.
    func verdict(executable: String, via: String? = nil, account: String, approval: Bool?) -> Verdict {
        guard executable.hasPrefix("/"), !CallerExecutable.undetermined(executable) else {
            return .refuse(
                WireError(
                    code: .callerNotAllowed,
                    message: "'\(account)' serves only programs it can name, and the calling program cannot be "
                        + "determined (\(executable)): \(Self.why(undetermined: executable, account: account))"))
        }
        if !allowedExecutables.isEmpty, !CallerExecutable.matches(executable, allowed: allowedExecutables),
            !(via.map { CallerExecutable.matches($0, allowed: allowedExecutables) } ?? false)
        {
            return .refuse(notAllowed(executable, via: via, account: account))
        }
        guard confirm else { return .serve }
        switch approval {
        case true?: return .serve
        case false?: return .refuse(Self.denied(executable, account: account))
        case nil: return .askApproval
        }
    }

    private static func why(undetermined executable: String, account: String) -> String {
        if executable.hasSuffix(CallerExecutable.otherNamespaceSuffix) {
            return "it runs in another mount or user namespace than the daemon, where a path may name another file. "
                + "To judge such programs by the file they run: authctl account update \(account) --allow-other-namespaces"
        }
        if executable.hasSuffix(CallerExecutable.notTheFileSuffix) {
            return "the file it runs is not the file at that path as the daemon sees it (a file mounted over the "
                + "path in its namespace, or a program it ran after connecting). Run it again from its installed path."
        }
        return "it exited or its file was replaced. Run it again from its installed path."
    }

    private func notAllowed(_ executable: String, via: String?, account: String) -> WireError {
        // An adapter is allowed for the program that ran it: suggest that one, when it can be named.
        let suggested = via.flatMap { $0.hasPrefix("/") && CallerExecutable.problem(with: [$0]) == nil ? $0 : nil } ?? executable
        let list = (allowedExecutables + [suggested]).map { "--allow-exe \(ShownText.shellWord($0))" }.joined(separator: " ")
        let shown = ShownText.escaped(executable)
        let caller =
            via.map { "\(shown) run by \(ShownText.escaped($0)) (authctl is matched by the program that runs it)" }
            ?? shown
        return WireError(
            code: .callerNotAllowed,
            message: "'\(account)' serves only its --allow-exe programs, not \(caller). "
                + "To allow it: authctl account update \(account) \(list)")
    }

    /// How many of an adapter's ancestors are looked at: its parent and, through shells, two more
    /// (git runs a `!authctl git-credential` helper through `sh -c`: authctl → sh → git-remote-https).
    static let maximumAncestors = 3
    /// Programs that only pass a request on (a helper's `sh -c`, a wrapper script): the walk goes past them.
    static let shells: Set<String> = ["sh", "dash", "bash", "zsh", "ksh", "mksh", "ash"]

    /// True when `executable` is `adapter` (this installation's authctl, which connects for git,
    /// kubectl, …) and not allowed itself: then the program it runs for decides (`speaker`).
    func looksPastAdapter(_ executable: String, adapter: String?) -> Bool {
        guard let adapter, !allowedExecutables.isEmpty, executable == adapter else { return false }
        return !CallerExecutable.matches(executable, allowed: allowedExecutables)
    }

    /// The ancestor an adapter speaks for: walking up from its parent, the first that is allowed or
    /// is not a shell, within `maximumAncestors`. Otherwise the last shell looked at, or "unknown"
    /// when there was none (the parent exited or is pid 1): neither is allowed (fail closed).
    func speaker(among ancestors: some Sequence<String>) -> String {
        var last = "unknown"
        for executable in ancestors.prefix(Self.maximumAncestors) {
            last = executable
            let name = executable.split(separator: "/").last.map(String.init) ?? executable
            if CallerExecutable.matches(executable, allowed: allowedExecutables) || !Self.shells.contains(name) {
                return executable
            }
        }
        return last
    }

    static func denied(_ executable: String, account: String) -> WireError {
        WireError(
            code: .callerNotAllowed,
            message: "\(ShownText.escaped(executable)) was denied the tokens of '\(account)' until the daemon restarts "
                + "(a denial needs no code, so it is not lifted by one: restart the daemon to be asked again).")
    }

    /// The answer when a wait for approval ended without one.
    static func unapproved(_ outcome: ApprovalOutcome, executable: String, account: String) -> WireError {
        let approve = "authctl approve \(account) --exe \(ShownText.shellWord(executable)) --code CODE"
        let shown = ShownText.escaped(executable)
        let then = "Try again, and while it waits approve it with: \(approve) (the code of its notification)."
        let message =
            switch outcome {
            case .overloaded: "Too many programs wait for approval for '\(account)'. \(then)"
            case .abandoned: "Too many wrong codes were tried to approve \(shown) for '\(account)'. \(then)"
            default: "No one approved \(shown) for '\(account)' in time. \(then)"
            }
        return WireError(code: .approvalRequired, message: message)
    }
}

/// The daemon's current caller policies, per account: written by the `TokenBroker` actor whenever
/// an account is loaded, added, updated or removed; read on the connection threads (one lock).
final class CallerPolicyTable: Sendable {
    /// Read-shared: looked up for every token request (`ReadMostlyLock`).
    private let policies = ReadMostlyLock<[AccountKey: CallerPolicy]>([:])

    func policy(for account: AccountKey) -> CallerPolicy? {
        policies.read { $0[account] }
    }

    func set(_ policy: CallerPolicy?, account: AccountKey) {
        policies.write { $0[account] = policy }
    }
}
