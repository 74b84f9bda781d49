/// One operation of the socket API on one concrete route, typed by its request body and its
/// answer: what `BrokerClient.call` sends and decodes, and what the daemon's router decodes and
/// encodes. `Body` is `APINoBody` for operations without one; `Response` is `APINoContent` for
/// 204 answers and `String` for text answers.
public struct APIEndpoint<Body: Codable & Sendable, Response: Codable & Sendable>: Sendable {
    public let operation: APIOperation
    public let route: APIRoute

    /// - Parameter parameter: the account name or login id of the route, "" for routes without one.
    init(_ operation: APIOperation, _ parameter: String = "") {
        self.operation = operation
        self.route = operation.route(parameter)
    }
}

/// The body of operations that send none (`APIBodyRule.none`).
public struct APINoBody: Codable, Sendable, Equatable {
    public init() {}
}

/// The answer of operations that answer 204 with no body.
public struct APINoContent: Codable, Sendable, Equatable {
    public init() {}
}

/// `{}`: the body of POSTs without parameters (must be a JSON object when present).
public struct EmptyObject: Codable, Sendable, Equatable {
    public init() {}
}

extension APIEndpoint where Body == APINoBody, Response == PingResult {
    public static var ping: Self { Self(.ping) }
}

extension APIEndpoint where Body == APINoBody, Response == AccountList {
    /// Every account with its state, without configurations.
    public static var status: Self { Self(.status) }
    /// Every account with its configuration.
    public static var listAccounts: Self { Self(.listAccounts) }
}

extension APIEndpoint where Body == AccountConfiguration, Response == AccountStatus {
    public static var addAccount: Self { Self(.addAccount) }
}

extension APIEndpoint where Body == APINoBody, Response == AccountStatus {
    public static func account(_ name: String) -> Self { Self(.getAccount, name) }
}

extension APIEndpoint where Body == AccountConfiguration, Response == AccountUpdateResult {
    public static func updateAccount(_ name: String) -> Self { Self(.updateAccount, name) }
}

extension APIEndpoint where Body == APINoBody, Response == APINoContent {
    public static func removeAccount(_ name: String) -> Self { Self(.removeAccount, name) }
}

extension APIEndpoint where Body == APINoBody, Response == TokenGrant {
    /// The access token (also as text/plain: `BrokerClient.text`); reads `min_ttl`.
    public static func token(account name: String) -> Self { Self(.token, name) }
}

extension APIEndpoint where Body == APINoBody, Response == IDTokenGrant {
    public static func idToken(account name: String) -> Self { Self(.idToken, name) }
}

extension APIEndpoint where Body == TokenRejection, Response == TokenRejectionResult {
    public static func tokenRejected(account name: String) -> Self { Self(.tokenRejected, name) }
}

extension APIEndpoint where Body == DPoPProofRequest, Response == DPoPProofGrant {
    /// The access token and a DPoP proof for one request (`Authorization: DPoP …` + `DPoP: …`).
    public static func dpopProof(account name: String) -> Self { Self(.dpopProof, name) }
}

extension APIEndpoint where Body == StepUpReport, Response == StepUpResult {
    /// Reports a resource server's `insufficient_scope` challenge: the account needs a login with more scopes.
    public static func stepUp(account name: String) -> Self { Self(.stepUp, name) }
}

extension APIEndpoint where Body == APINoBody, Response == APINoContent {
    /// Ends the MCP session named by the `Mcp-Session-Id` header at the account's resource (`authctl mcp`'s exit).
    public static func mcpEndSession(account name: String) -> Self { Self(.mcpEndSession, name) }
}

extension APIEndpoint where Body == LoginRequest, Response == LoginStarted {
    public static func login(account name: String) -> Self { Self(.login, name) }
}

extension APIEndpoint where Body == APINoBody, Response == LoginStatus {
    /// Reads `wait` (long poll).
    public static func loginStatus(id: String) -> Self { Self(.loginStatus, id) }
    /// Ends the caller's pending login of the account (`authctl login --cancel`, Ctrl-C).
    public static func cancelLogin(account name: String) -> Self { Self(.cancelLogin, name) }
}

extension APIEndpoint where Body == LoginCallbackRequest, Response == LoginStatus {
    /// Hands a private-use scheme redirect to the pending login whose `state` it carries.
    public static var loginCallback: Self { Self(.loginCallback) }
}

extension APIEndpoint where Body == EmptyObject, Response == LogoutResult {
    public static func logout(account name: String) -> Self { Self(.logout, name) }
}

extension APIEndpoint where Body == DiscoveryRequest, Response == DiscoveryResult {
    /// Fetches and validates a discovery document and answers the issuer it names.
    public static var discovery: Self { Self(.discovery) }
}

extension APIEndpoint where Body == EmptyObject, Response == RekeyResult {
    public static var rekey: Self { Self(.rekey) }
}

extension APIEndpoint where Body == APINoBody, Response == String {
    /// Prometheus text.
    public static var metrics: Self { Self(.metrics) }
}

extension APIEndpoint where Body == APINoBody, Response == RestrictedSocketList {
    public static var listSockets: Self { Self(.listSockets) }
}

extension APIEndpoint where Body == RestrictedSocketRequest, Response == RestrictedSocketInfo {
    public static var addSocket: Self { Self(.addSocket) }
}

extension APIEndpoint where Body == APINoBody, Response == APINoContent {
    public static func removeSocket(_ name: String) -> Self { Self(.removeSocket, name) }
}

extension APIEndpoint where Body == APINoBody, Response == ApprovalList {
    public static var listApprovals: Self { Self(.listApprovals) }
}

extension APIEndpoint where Body == ApprovalDecision, Response == ApprovalResult {
    public static var decideApproval: Self { Self(.decideApproval) }
}
