/// Every operation of the socket API (docs/api.md): one method on one route, the query parameters
/// it reads and whether it takes a JSON body. The daemon's router dispatches on this list and the
/// client's `APIEndpoint`s are built from it; a test checks docs/api.md's route table against it.
///
/// The order is the order of the `Allow` header of a 405 answer.
public enum APIOperation: String, CaseIterable, Sendable {
    case ping, status
    case listAccounts, addAccount
    case getAccount, updateAccount, removeAccount
    case token, idToken, tokenRejected, dpopProof
    case mcpMessage, mcpListen, mcpEndSession, stepUp
    case login, cancelLogin, loginStatus, loginCallback, logout
    case discovery
    case rekey, metrics
    case listSockets, addSocket, removeSocket
    case listApprovals, decideApproval

    public var method: String {
        switch self {
        case .ping, .status, .listAccounts, .getAccount, .token, .idToken, .loginStatus, .metrics, .listSockets,
            .listApprovals, .mcpListen:
            "GET"
        case .addAccount, .tokenRejected, .login, .loginCallback, .logout, .discovery, .rekey, .addSocket, .dpopProof,
            .decideApproval, .mcpMessage, .stepUp:
            "POST"
        case .updateAccount: "PUT"
        case .removeAccount, .removeSocket, .cancelLogin, .mcpEndSession: "DELETE"
        }
    }

    /// The route of this operation with `parameter` as its account name or login id (ignored by
    /// routes without one). Not checked here: `APIRoute.path()` checks when it builds the path.
    public func route(_ parameter: String) -> APIRoute {
        switch self {
        case .ping: .ping
        case .status: .status
        case .listAccounts, .addAccount: .accounts
        case .getAccount, .updateAccount, .removeAccount: .account(parameter)
        case .token: .token(parameter)
        case .idToken: .idToken(parameter)
        case .tokenRejected: .tokenRejected(parameter)
        case .dpopProof: .dpopProof(parameter)
        case .mcpMessage, .mcpListen, .mcpEndSession: .mcp(parameter)
        case .stepUp: .stepUp(parameter)
        case .login, .cancelLogin: .login(parameter)
        case .loginStatus: .loginStatus(parameter)
        case .loginCallback: .loginCallback
        case .logout: .logout(parameter)
        case .discovery: .discovery
        case .rekey: .rekey
        case .metrics: .metrics
        case .listSockets, .addSocket: .sockets
        case .removeSocket: .socket(parameter)
        case .listApprovals, .decideApproval: .approvals
        }
    }

    /// The route's path template, e.g. `/v1/accounts/{name}/token`.
    public var routeTemplate: String { route("").template }

    /// The operation for a matched route and a request method, nil when the route does not answer it.
    public init?(route: APIRoute, method: String) {
        guard let operation = Self.allCases.first(where: { $0.routeTemplate == route.template && $0.method == method })
        else { return nil }
        self = operation
    }

    /// The query parameters the operation reads; any other is a 400. Nil: the query string is not
    /// read at all (the routes that never took one; refusing it there would change the contract).
    public var query: [APIQueryParameter]? {
        switch self {
        case .ping, .status, .listAccounts, .metrics, .listSockets, .addSocket, .removeSocket, .listApprovals,
            .decideApproval, .cancelLogin:
            []
        case .token: [.minTTL, .scope, .resource, .audience, .refresh]
        case .idToken: [.minTTL]
        case .loginStatus: [.wait]
        case .loginCallback, .discovery, .dpopProof, .mcpMessage, .mcpListen, .mcpEndSession, .stepUp: []
        case .addAccount: [.dryRun]
        case .updateAccount: [.dryRun, .keepClientSecret]
        case .getAccount, .removeAccount, .tokenRejected, .login, .logout, .rekey: nil
        }
    }

    /// Whether the request carries a JSON object.
    public var body: APIBodyRule {
        switch self {
        case .addAccount, .updateAccount, .tokenRejected, .loginCallback, .discovery, .addSocket, .decideApproval, .dpopProof,
            .mcpMessage, .stepUp:
            .required
        case .login, .logout, .rekey: .optional
        case .ping, .status, .listAccounts, .getAccount, .removeAccount, .token, .idToken, .loginStatus, .metrics,
            .listSockets, .removeSocket, .listApprovals, .cancelLogin, .mcpListen, .mcpEndSession:
            .none
        }
    }
}

/// Whether an operation's request has a JSON body.
public enum APIBodyRule: Sendable, Equatable {
    /// The body is not read.
    case none
    /// An empty body means the defaults; a present one must be the JSON object of the body type.
    case optional
    /// An empty body is a 400.
    case required
}

/// A query parameter of the socket API: its name on the wire and the whole seconds it accepts.
public enum APIQueryParameter: String, CaseIterable, Sendable {
    /// The least remaining lifetime the caller needs (a day at most).
    case minTTL = "min_ttl"
    /// How long a login status request may wait for the login to finish (long poll).
    case wait
    /// A narrowed token's scopes, space-separated (`TokenNarrowing`; text, not seconds).
    case scope
    /// A narrowed token's resources (RFC 8707), space-separated absolute URIs.
    case resource
    /// A narrowed token's audience.
    case audience
    /// `refresh=1`: refresh now and answer with the new token (`authctl refresh`), whatever is left.
    case refresh
    /// `dry_run=1` on `POST`/`PUT /v1/accounts`: check and answer the outcome, change nothing.
    case dryRun = "dry_run"
    /// `keep_client_secret=1` on `PUT /v1/accounts/{name}`: a body without `client_secret` keeps the sealed one.
    case keepClientSecret = "keep_client_secret"

    public var range: ClosedRange<Int> {
        switch self {
        case .minTTL: 0...86_400
        case .wait: 0...60
        case .scope, .resource, .audience: 0...0
        case .refresh, .dryRun, .keepClientSecret: 1...1
        }
    }
}
