/// The stable error codes of the socket API (docs/api.md). Clients branch on `code`, people read `message`.
public enum WireErrorCode: String, Codable, Sendable, CaseIterable {
    case unknownAccount = "unknown_account"
    case loginRequired = "login_required"
    case loginPending = "login_pending"
    case providerUnavailable = "provider_unavailable"
    case invalidRequest = "invalid_request"
    case forbidden
    case conflict
    case `internal`
    /// The daemon's token store cannot write (disk full, I/O error): new tokens are kept in memory
    /// and saved again with backoff. Temporary: free disk space and try again.
    case storageFailed = "storage_failed"
    /// The account's stored configuration cannot be read (written by a newer authbroker, or
    /// damaged): the account is listed but unusable, its tokens kept unused until it is set up again.
    case configurationUnreadable = "configuration_unreadable"
    /// The provider's verified certificate chain carries none of the account's `--pin-sha256`
    /// keys: the provider changed keys, or someone intercepts. Needs a person; never retried blindly.
    case tlsPinMismatch = "tls_pin_mismatch"
    /// A DPoP proof was asked for an account that is not set up for DPoP (`--dpop`): its tokens
    /// are Bearer tokens and need no proof. Use `authctl token`, or set the account up with `--dpop`.
    case notDPoP = "not_dpop"
    /// The account has an `--allow-exe` list and the calling program (`/proc/PID/exe`) is not on it,
    /// or cannot be determined. The message names the program and the command that allows it.
    case callerNotAllowed = "caller_not_allowed"
    /// A `--confirm` account's caller waited for `authctl approve` and no decision came in time.
    /// Like a login, it needs the user: exit 77, and the message names the approve command.
    case approvalRequired = "approval_required"
    /// Approving a program (`POST /v1/approvals`) or changing the caller policy of an account that
    /// has one (`PUT /v1/accounts/{name}`) needs the one-time code the daemon shows only through the
    /// notify hook (`AUTHBROKER_APPROVAL_CODE`) or the desktop notification; none was given. For a
    /// policy change the daemon has just sent a fresh code. Needs the user: exit 77.
    case confirmationRequired = "confirmation_required"
    /// The one-time code given was wrong, burnt (too many wrong tries) or issued for another change.
    case confirmationFailed = "confirmation_failed"
    /// A narrowed token request named a scope the account was not granted: never widened.
    case scopeNotGranted = "scope_not_granted"
    /// A narrowed token request on an account whose provider is not known to keep the original
    /// grant on a narrowed refresh (and which did not opt in with `--allow-narrowing`).
    case scopeNarrowingUnsafe = "scope_narrowing_unsafe"
    /// A refresh came back with fewer scopes than the account was granted: log in again.
    case scopeLost = "scope_lost"
    /// A narrowed token for a resource or audience that is not on the account's allow-list
    /// (`narrow_resources`, `narrow_audiences`), or a narrowing a restricted socket was not created with.
    case narrowingNotAllowed = "narrowing_not_allowed"
    /// The provider refused a narrowed refresh (consent, interaction, a refused grant for that
    /// narrowing): that caller's error only — the account and its own token are unchanged.
    case narrowingRefused = "narrowing_refused"
    /// Too many distinct narrowed refreshes of one account in a short time: try again after `Retry-After`.
    case rateLimited = "rate_limited"

    /// The HTTP status the daemon answers with for this code.
    public var httpStatus: Int {
        switch self {
        case .invalidRequest: 400
        case .loginRequired, .loginPending, .scopeLost: 401
        case .forbidden, .callerNotAllowed, .approvalRequired, .scopeNotGranted, .scopeNarrowingUnsafe, .narrowingNotAllowed,
            .narrowingRefused, .confirmationRequired, .confirmationFailed:
            403
        case .rateLimited: 429
        case .unknownAccount: 404
        case .conflict, .notDPoP: 409
        case .internal, .storageFailed, .configurationUnreadable: 500
        case .providerUnavailable: 503
        case .tlsPinMismatch: 502
        }
    }

    /// The `authctl` exit code for this error (sysexits-style; authctl(1)'s EXIT STATUS table): a
    /// request the daemon refuses as invalid (a bad issuer, a malformed value) is a usage error, 64,
    /// like authctl's own.
    public var exitCode: Int32 {
        switch self {
        case .loginRequired, .loginPending, .approvalRequired, .scopeLost, .confirmationRequired: ExitCode.loginRequired
        case .providerUnavailable, .storageFailed, .rateLimited: ExitCode.temporaryFailure
        case .invalidRequest: ExitCode.usage
        case .unknownAccount, .forbidden, .conflict, .internal, .configurationUnreadable, .tlsPinMismatch,
            .notDPoP, .callerNotAllowed, .scopeNotGranted, .scopeNarrowingUnsafe, .narrowingNotAllowed, .narrowingRefused,
            .confirmationFailed:
            ExitCode.failure
        }
    }
}

/// `authctl` exit codes. Scripts rely on them; never renumber.
public enum ExitCode {
    public static let success: Int32 = 0
    public static let failure: Int32 = 1
    /// EX_USAGE: bad command line.
    public static let usage: Int32 = 64
    /// EX_UNAVAILABLE: the daemon is not running.
    public static let daemonUnavailable: Int32 = 69
    /// EX_TEMPFAIL: provider unreachable and no valid token left, or a login timed out.
    public static let temporaryFailure: Int32 = 75
    /// EX_NOPERM: a login is required (no tokens, refresh rejected, or a login pending).
    public static let loginRequired: Int32 = 77
    /// The program `authctl exec` or `authctl curl` was to run could not be run (the shell's code).
    public static let cannotRun: Int32 = 127
    /// `login` stopped with Ctrl-C (128 + SIGINT, the shell's code for it).
    public static let interrupted: Int32 = 130

    /// Every code above: authctl(1)'s EXIT STATUS table lists exactly these (ExitCodeTableTests).
    public static let all: [Int32] = [
        success, failure, usage, daemonUnavailable, temporaryFailure, loginRequired, cannotRun, interrupted,
    ]
}

/// An API error: `{"error": {"code": "...", "message": "...", "authorization_url": "..."}}`.
public struct WireError: Codable, Sendable, Equatable, Error, CustomStringConvertible {
    public var code: WireErrorCode
    public var message: String
    /// Present with `login_pending`: where the user should go to finish the login.
    public var authorizationURL: String?
    /// With `rate_limited`: seconds until a retry can succeed, sent as the `Retry-After` header (not in the body).
    public var retryAfter: Int? = nil

    public init(code: WireErrorCode, message: String, authorizationURL: String? = nil, retryAfter: Int? = nil) {
        self.code = code
        self.message = message
        self.authorizationURL = authorizationURL
        self.retryAfter = retryAfter
    }

    public var description: String { message }

    enum CodingKeys: String, CodingKey {
        case code, message
        case authorizationURL = "authorization_url"
    }
}

/// The body of every error response.
public struct ErrorEnvelope: Codable, Sendable, Equatable {
    public var error: WireError
    public init(error: WireError) { self.error = error }
}
