import BrokerProtocol
import HTTPCodec

/// What the socket API can ask of the broker. The `APIRouter` (HTTP, JSON, peer checks, audit) calls
/// it; the `TokenBroker` actor implements it. Errors are wire errors with stable codes, already
/// phrased for people (they end up in `authctl`'s one-line messages).
public protocol BrokerService: Sendable {
    /// `GET /v1/status`: every account's state.
    func status() async -> AccountList
    /// `GET /v1/accounts`: every account's state and configuration (never the client secret).
    func accounts() async -> AccountList
    /// `GET /v1/accounts/{name}`.
    func account(named name: String) async throws(WireError) -> AccountStatus
    /// `POST /v1/accounts`: runs discovery at once unless manual endpoints are given.
    func addAccount(_ configuration: AccountConfiguration) async throws(WireError) -> AccountStatus
    /// `DELETE /v1/accounts/{name}`: logs out first (best effort), then forgets the account.
    func removeAccount(named name: String) async throws(WireError)
    /// `PUT /v1/accounts/{name}`: replaces the configuration of the account `configuration.name`.
    /// A change to its security profile (or client secret) logs the account out; others keep the tokens.
    func updateAccount(_ configuration: AccountConfiguration) async throws(WireError) -> AccountUpdateResult

    /// The synchronous fast path for `GET /v1/accounts/{name}/token` without `min_ttl`: a token that is
    /// valid and outside the refresh margin, served from memory on the connection thread. nil means
    /// "ask `token(account:minTTL:requester:)`" (refresh due, no token, unknown account…).
    func cachedToken(account: String, now: Double) -> TokenGrant?
    /// `GET /v1/accounts/{name}/token?min_ttl=S`: may wait for a refresh (single-flight).
    func token(account: String, minTTL: Double?, requester: PeerCredentials) async throws(WireError) -> TokenGrant
    /// `POST /v1/accounts/{name}/token/rejected`: a resource server refused `accessToken`; when it is the
    /// current one it is no longer served and the next request refreshes. Never a logout.
    func tokenRejected(account: String, accessToken: String) async throws(WireError) -> TokenRejectionResult
    /// `GET /v1/accounts/{name}/id_token?min_ttl=S`: the current ID token while it has `minTTL` seconds
    /// left (its own `exp`), else after a refresh; `login_required` when there is none.
    func idToken(account: String, minTTL: Double?, requester: PeerCredentials) async throws(WireError) -> IDTokenGrant

    /// `POST /v1/accounts/{name}/login`: starts (or joins) a login.
    func startLogin(account: String, request: LoginRequest) async throws(WireError) -> LoginStarted
    /// `GET /v1/logins/{id}?wait=S`: the login's outcome, waiting up to `wait` seconds while pending.
    func loginStatus(id: String, wait: Double) async throws(WireError) -> LoginStatus
    /// `POST /v1/accounts/{name}/logout`.
    func logout(account: String) async throws(WireError) -> LogoutResult
    /// `POST /v1/rekey`.
    func rekey() async throws(WireError) -> RekeyResult

    /// `GET /metrics`: Prometheus text exposition.
    func metrics() -> String
}
