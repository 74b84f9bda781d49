import BrokerProtocol
import WireFormats

/// What the socket API can ask of the broker. The `APIRouter` (HTTP, JSON, peer checks, audit) calls
/// it; the `TokenBroker` actor implements it. Errors are wire errors with stable codes, already
/// phrased for people (they end up in `authctl`'s one-line messages).
///
/// Every account belongs to an owner uid. The router passes the caller's SO_PEERCRED uid as the
/// owner (inside an `AccountKey` for one account): another owner's account does not exist for the
/// caller (`unknown_account`), in lists, logins and metrics alike.
public protocol BrokerService: Sendable {
    /// `GET /v1/status`: the state of every account `owner` has.
    func status(owner: UInt32) async -> AccountList
    /// `GET /v1/accounts`: `owner`'s accounts, state and configuration (never the client secret).
    func accounts(owner: UInt32) async -> AccountList
    /// `GET /v1/accounts/{name}`.
    func account(_ key: AccountKey) async throws(WireError) -> AccountStatus
    /// `POST /v1/accounts`: a new account of `owner`; runs discovery at once unless manual endpoints are given.
    /// `dryRun`: only checks (body, name free).
    func addAccount(_ configuration: AccountConfiguration, owner: UInt32, dryRun: Bool) async throws(WireError) -> AccountStatus
    /// `DELETE /v1/accounts/{name}`: logs out first (best effort), then forgets the account; the log
    /// line names `caller` (its caller policy goes with it: docs/security.md, "Caller policy").
    func removeAccount(_ key: AccountKey, caller: ChangeRequester) async throws(WireError)
    /// `PUT /v1/accounts/{name}`: replaces the configuration of `owner`'s account `configuration.name`.
    /// A change to its security profile (or client secret) logs the account out; others keep the tokens.
    /// A change that loosens the caller policy of an account that has one needs `confirmation`, the
    /// one-time code sent through the notification (`confirmation_required` sends one).
    /// `keepClientSecret`: a body without a secret keeps the sealed one; `dryRun`: the outcome only.
    func updateAccount(
        _ configuration: AccountConfiguration, owner: UInt32, confirmation: String?, caller: ChangeRequester,
        keepClientSecret: Bool, dryRun: Bool
    ) async throws(WireError) -> AccountUpdateResult

    /// The synchronous fast path for `GET /v1/accounts/{name}/token` without `min_ttl`: a token that is
    /// valid and outside the refresh margin, served from memory on the connection thread. nil means
    /// "ask `token(account:minTTL:)`" (refresh due, no token, unknown account…).
    func cachedToken(account: AccountKey, now: Double) -> TokenGrant?
    /// The account's caller policy (`--allow-exe`), synchronous for the fast path; nil when it has
    /// none or does not exist (then the token call answers `unknown_account`).
    func callerPolicy(account: AccountKey) -> CallerPolicy?
    /// This boot's `--confirm` decision for `executable` on the account: true approved, false
    /// denied, nil none yet (synchronous, for the fast path).
    func callerApproval(account: AccountKey, executable: String) -> Bool?
    /// Waits (bounded) for `authctl approve` to decide on `executable`; the first waiter of a pair
    /// runs the notify hook with `approval_needed`.
    func awaitCallerApproval(account: AccountKey, executable: String, pid: Int32) async -> ApprovalOutcome
    /// `GET /v1/approvals`: `owner`'s requests waiting for approval.
    func pendingApprovals(owner: UInt32) -> ApprovalList
    /// `POST /v1/approvals`: approves (with the wait's one-time code) or denies an executable for
    /// one of `owner`'s accounts.
    func decideApproval(_ decision: ApprovalDecision, owner: UInt32, caller: ChangeRequester) async throws(WireError)
        -> ApprovalResult
    /// `GET /v1/accounts/{name}/token?min_ttl=S`: may wait for a refresh (single-flight).
    func token(account: AccountKey, minTTL: Double?) async throws(WireError) -> TokenGrant
    /// `GET /v1/accounts/{name}/token?refresh=1`: joins or starts a refresh now (within the
    /// one-refresh-per-second cap) and answers with its token, however long the current one has left.
    func refreshedToken(account: AccountKey) async throws(WireError) -> TokenGrant
    /// `GET /v1/accounts/{name}/token?scope=…&resource=…&audience=…`: a token narrower than the
    /// account's (`TokenNarrowing`, never empty here), cached per key; `scope` reports what was granted.
    func narrowedToken(account: AccountKey, narrowing: TokenNarrowing, minTTL: Double?) async throws(WireError)
        -> TokenGrant
    /// `POST /v1/accounts/{name}/token/rejected`: a resource server refused `accessToken`; when it is the
    /// current one it is no longer served and the next request refreshes. Never a logout.
    func tokenRejected(account: AccountKey, accessToken: String) async throws(WireError) -> TokenRejectionResult
    /// `GET /v1/accounts/{name}/id_token?min_ttl=S`: the current ID token while it has `minTTL` seconds
    /// left (its own `exp`), else after a refresh; `login_required` when there is none.
    func idToken(account: AccountKey, minTTL: Double?) async throws(WireError) -> IDTokenGrant
    /// `POST /v1/accounts/{name}/dpop-proof`: the account's access token and a proof signed with its
    /// DPoP key for `method` and `url`, with `ath` and the resource server's `nonce` when given (the
    /// router has checked the request with `DPoPProofRequest.problem`). The key never leaves the daemon.
    func dpopProof(account: AccountKey, request: DPoPProofRequest) async throws(WireError) -> DPoPProofGrant
    /// The synchronous fast path for `dpop-proof`, like `cachedToken`: a proof with a token that may
    /// be served from memory, signed on the connection thread. nil means "ask `dpopProof`".
    /// `target` is the request's URL as `DPoPProofRequest.checkedTarget` parsed it: a proof parses
    /// the caller's URL once (docs/BENCHMARKS.md, "DPoP proofs").
    func cachedDPoPProof(account: AccountKey, request: DPoPProofRequest, target: AbsoluteURL, now: Double) -> DPoPProofGrant?

    /// `POST|DELETE /v1/accounts/{name}/mcp`: sends `message` to the account's own resource URL with
    /// its token (or a DPoP proof) attached here, and answers what the MCP server said (docs/mcp.md).
    func mcpRelay(account: AccountKey, message: MCPRelayMessage) async throws(WireError) -> MCPRelayAnswer
    /// `POST /v1/accounts/{name}/step-up`: records that the account needs a login with `scopes`
    /// besides the granted ones (never a login by itself) and tells the user once per new set.
    func stepUp(account: AccountKey, scopes: [String]) async throws(WireError) -> StepUpResult

    /// `POST /v1/accounts/{name}/login`: starts (or joins) a login.
    func startLogin(account: AccountKey, request: LoginRequest) async throws(WireError) -> LoginStarted
    /// `DELETE /v1/accounts/{name}/login`: ends the account's pending login without tokens and
    /// answers its final status (`failed`, error `conflict`); the account keeps its tokens and state.
    func cancelLogin(account: AccountKey) async throws(WireError) -> LoginStatus
    /// `GET /v1/logins/{id}?wait=S`: the outcome of `owner`'s login, waiting up to `wait` seconds while
    /// pending. Another owner's login id is answered like an unknown one.
    func loginStatus(id: String, owner: UInt32, wait: Double) async throws(WireError) -> LoginStatus
    /// `POST /v1/logins/callback`: the private-use scheme redirect `url` for one of `owner`'s pending
    /// logins (matched by its `state`), answered with that login's outcome.
    func loginCallback(url: String, owner: UInt32) async throws(WireError) -> LoginStatus
    /// `POST /v1/accounts/{name}/logout`.
    func logout(account: AccountKey) async throws(WireError) -> LogoutResult
    /// `POST /v1/discovery`: the issuer the discovery document at `url` names, read with `pins`
    /// (`pin_sha256`, none: normal verification only); nothing is stored.
    func discoveryIssuer(url: String, pins: [String]) async throws(WireError) -> DiscoveryResult
    /// `POST /v1/rekey` (the router lets only the daemon's own uid ask: the key protects every owner).
    func rekey() async throws(WireError) -> RekeyResult

    /// `GET /metrics`: Prometheus text exposition; the account gauge counts only `owner`'s accounts.
    func metrics(owner: UInt32) -> String
}

/// Who asks for a decision or a change (the connection's SO_PEERCRED pid and the `/proc` executable
/// the router read for it), for the log line and the notification — not proof of anything.
public struct ChangeRequester: Sendable, Equatable {
    public var pid: String
    public var executable: String

    public init(pid: Int32, executable: String) {
        self.pid = String(pid)
        self.executable = executable
    }

    private init(unknownPID: Void) {
        pid = "unknown"
        executable = "unknown"
    }

    /// No socket caller (the daemon itself, a test).
    public static let unknown = ChangeRequester(unknownPID: ())
}
