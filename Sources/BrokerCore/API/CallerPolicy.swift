import BrokerProtocol
import Synchronization

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

    public init(allowedExecutables: [String], confirm: Bool = false) {
        self.allowedExecutables = allowedExecutables
        self.confirm = confirm
    }

    /// The account's policy, or nil when it has none (every caller of the owner is served).
    public init?(_ configuration: AccountConfiguration) {
        let executables = configuration.allowExe ?? []
        let confirm = configuration.confirmCallers ?? false
        guard !executables.isEmpty || confirm else { return nil }
        self.init(allowedExecutables: executables, confirm: confirm)
    }

    /// What to do with a caller running `executable`, given this boot's `approval` of it (nil: none yet).
    enum Verdict: Equatable {
        case serve
        case refuse(WireError)
        case askApproval
    }

    func verdict(executable: String, account: String, approval: Bool?) -> Verdict {
        guard executable.hasPrefix("/"), !executable.hasSuffix(CallerExecutable.deletedSuffix) else {
            return .refuse(WireError(
                code: .callerNotAllowed,
                message: "'\(account)' serves only programs it can name, and the calling program cannot be "
                    + "determined (\(executable)): it exited or its file was replaced. Run it again from its installed path."))
        }
        if !allowedExecutables.isEmpty, !CallerExecutable.matches(executable, allowed: allowedExecutables) {
            let list = (allowedExecutables + [executable]).map { "--allow-exe \($0)" }.joined(separator: " ")
            return .refuse(WireError(
                code: .callerNotAllowed,
                message: "'\(account)' serves only its --allow-exe programs, not \(executable). "
                    + "To allow it: authctl account update \(account) \(list)"))
        }
        guard confirm else { return .serve }
        switch approval {
        case true?: return .serve
        case false?: return .refuse(Self.denied(executable, account: account))
        case nil: return .askApproval
        }
    }

    static func denied(_ executable: String, account: String) -> WireError {
        WireError(
            code: .callerNotAllowed,
            message: "\(executable) was denied the tokens of '\(account)' until the daemon restarts "
                + "(authctl approve \(account) --exe \(executable) allows it now).")
    }

    /// The answer when a wait for approval ended without one.
    static func unapproved(_ outcome: ApprovalOutcome, executable: String, account: String) -> WireError {
        let approve = "authctl approve \(account) --exe \(executable)"
        let message = outcome == .overloaded
            ? "Too many programs wait for approval for '\(account)'. Approve this one with: \(approve), then try again."
            : "No one approved \(executable) for '\(account)' in time. Approve it with: \(approve), then try again."
        return WireError(code: .approvalRequired, message: message)
    }
}

/// The daemon's current caller policies, per account: written by the `TokenBroker` actor whenever
/// an account is loaded, added, updated or removed; read on the connection threads (one lock).
final class CallerPolicyTable: Sendable {
    private let policies = Mutex<[AccountKey: CallerPolicy]>([:])

    func policy(for account: AccountKey) -> CallerPolicy? {
        policies.withLock { $0[account] }
    }

    func set(_ policy: CallerPolicy?, account: AccountKey) {
        policies.withLock { $0[account] = policy }
    }
}
