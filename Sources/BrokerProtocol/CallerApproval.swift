/// `--confirm` accounts: a caller executable not yet approved (per account, per daemon boot) waits
/// for `authctl approve` (`POST /v1/approvals`) before it gets a token (docs/guide.md, "Caller policy").
public enum CallerApproval {
    /// How long a token request waits for a decision; the daemon's `--approval-timeout` may only
    /// shorten it, so a client that waits `clientTimeout` always hears the daemon's answer.
    public static let maximumWaitSeconds = 60
    /// authctl's timeout for token and ID token requests: the longest approval wait plus the
    /// longest refresh wait (`TokenBroker.Options.tokenWaitTimeout`, 30 s) — either may come first.
    public static let clientTimeout: Double = Double(maximumWaitSeconds) + 30
}

/// One token request waiting for approval, as `GET /v1/approvals` lists it.
public struct PendingApproval: Codable, Sendable, Equatable {
    public var account: String
    /// `/proc/PID/exe` of the first waiting caller, as the policy names it
    /// (`CallerExecutable.policyName`: authctl-full is shown as the authctl beside it).
    public var executable: String
    /// The first waiting caller's pid.
    public var pid: Int32
    /// How many requests wait for this account and executable.
    public var waiting: Int

    public init(account: String, executable: String, pid: Int32, waiting: Int) {
        self.account = account
        self.executable = executable
        self.pid = pid
        self.waiting = waiting
    }
}

/// `GET /v1/approvals`: the caller's accounts' pending approvals.
public struct ApprovalList: Codable, Sendable, Equatable {
    public var approvals: [PendingApproval]
    public init(approvals: [PendingApproval]) { self.approvals = approvals }
}

/// Body of `POST /v1/approvals` (`authctl approve NAME [--exe PATH] [--code CODE] [--deny]`).
public struct ApprovalDecision: Codable, Sendable, Equatable {
    public var account: String
    /// nil: the one executable waiting for `account` (refused when none or several wait).
    public var executable: String?
    /// true: refused until the daemon restarts.
    public var deny: Bool
    /// The one-time code the notification showed for this wait (`ConfirmationCode`): required to
    /// approve, ignored for a denial (denying cannot widen anything).
    public var code: String?

    public init(account: String, executable: String? = nil, deny: Bool = false, code: String? = nil) {
        self.account = account
        self.executable = executable
        self.deny = deny
        self.code = code
    }

    enum CodingKeys: String, CodingKey { case account, executable, deny, code }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        account = try container.decode(String.self, forKey: .account)
        executable = try container.decodeIfPresent(String.self, forKey: .executable)
        deny = try container.decodeIfPresent(Bool.self, forKey: .deny) ?? false
        code = try container.decodeIfPresent(String.self, forKey: .code)
    }
}

/// The answer of `POST /v1/approvals`.
public struct ApprovalResult: Codable, Sendable, Equatable {
    public var account: String
    public var executable: String
    /// `approved` or `denied`.
    public var decision: String
    /// The waiting requests this decision released.
    public var released: Int

    public init(account: String, executable: String, decision: String, released: Int) {
        self.account = account
        self.executable = executable
        self.decision = decision
        self.released = released
    }
}
