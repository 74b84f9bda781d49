import BrokerProtocol
import Synchronization

/// Which listener a request came in on: the main socket (the whole API) or a restricted socket,
/// which serves `GET /v1/ping`, the token of its accounts (and DPoP proofs for them) and nothing else (docs/remote.md).
/// The router decides this before routing, from the listener alone — never from the request.
public enum SocketScope: Sendable {
    case main
    case restricted(RestrictedGrant)

    /// The socket's name in audit lines: `main` or the restricted socket's name.
    public var auditName: String {
        switch self {
        case .main: RestrictedSocketName.main
        case .restricted(let grant): grant.name
        }
    }
}

/// What one restricted socket may hand out: the tokens of `owner`'s listed accounts — the plain
/// token only, unless the socket was created with named narrowings (`narrowings`). The list
/// shrinks when one of those accounts is removed (so a later account of the same name is not
/// served), which is why it sits behind a lock rather than in a value.
public final class RestrictedGrant: Sendable {
    public let name: String
    /// The uid that created the socket; only its accounts, and only its connections, are served.
    public let owner: UInt32
    private let accountNames: Mutex<[String]>
    /// The narrowed tokens (`TokenNarrowing`, normalised) the socket's peer may ask for besides the
    /// plain token; empty: none (`RestrictedRouteFilter.narrowingRefusal`).
    public let narrowings: [TokenNarrowing]

    public init(name: String, owner: UInt32, accounts: [String], narrowings: [TokenNarrowing] = []) {
        self.name = name
        self.owner = owner
        self.accountNames = Mutex(accounts)
        self.narrowings = narrowings
    }

    /// The accounts still granted, in the order they were given.
    public var accounts: [String] { accountNames.withLock { $0 } }

    /// Forgets `account` (it was removed); true when it was granted.
    @discardableResult
    public func revoke(_ account: String) -> Bool {
        accountNames.withLock { names in
            guard let index = names.firstIndex(of: account) else { return false }
            names.remove(at: index)
            return true
        }
    }

    func grants(_ account: String) -> Bool { accountNames.withLock { $0.contains(account) } }
}

/// The decision a restricted socket makes about one request, before any route runs. Everything
/// not explicitly allowed is refused, including paths that match no route (fail closed).
enum RestrictedRouteFilter {
    /// nil: serve it; else the 403 message.
    static func refusal(
        operation: APIOperation?, route: APIRoute?, peerUID: UInt32, grant: RestrictedGrant
    ) -> String? {
        guard let operation, let route, allowed(operation, route, peerUID: peerUID, grant: grant) else {
            return message(grant)
        }
        return nil
    }

    private static func allowed(_ operation: APIOperation, _ route: APIRoute, peerUID: UInt32, grant: RestrictedGrant) -> Bool {
        switch operation {
        case .ping:
            return true
        case .token:
            guard case .token(let name) = route else { return false }
            return peerUID == grant.owner && grant.grants(name)
        case .dpopProof:
            // A proof comes with the token it binds: a token-class answer, for the same accounts.
            guard case .dpopProof(let name) = route else { return false }
            return peerUID == grant.owner && grant.grants(name)
        case .status, .listAccounts, .addAccount, .getAccount, .updateAccount, .removeAccount, .idToken, .tokenRejected,
            .login, .cancelLogin, .loginStatus, .loginCallback, .logout, .discovery, .rekey, .metrics, .listSockets, .addSocket,
            .removeSocket, .listApprovals, .decideApproval:
            return false
        case .mcpMessage, .mcpListen, .mcpEndSession, .stepUp:
            // Deliberately refused (docs/mcp.md): a restricted socket hands out tokens only; the relay
            // and step-up change what the account does on the main socket's behalf.
            return false
        }
    }

    /// The 403 message for a narrowed token (`scope`/`resource`/`audience`, on the token route or in a
    /// proof request) the socket was not created with; nil for the plain token or a listed narrowing.
    /// Exact match of the normalised narrowing: a subset of a listed one is refused too (fail closed).
    static func narrowingRefusal(_ narrowing: TokenNarrowing, grant: RestrictedGrant) -> String? {
        guard !narrowing.isEmpty, !grant.narrowings.contains(narrowing) else { return nil }
        let listed = grant.narrowings.map(\.description)
        let served = listed.isEmpty ? "only plain tokens" : "plain tokens and " + listed.joined(separator: ", ")
        return "This socket ('\(grant.name)') is restricted: it serves \(served), not \(narrowing.description). "
            + "Create a socket for it with: authctl socket add NAME --account A --narrowing '\(narrowing.description)'"
    }

    /// The 403 message for `refresh=1` (a forced refresh) on a restricted socket. A forced refresh
    /// is capped only at one a second per account: a peer that may read the token must not be able
    /// to keep the provider busy with the owner's refresh token (or burn a rotating one) — the
    /// daemon refreshes on its own schedule, and `authctl refresh` on the main socket forces one.
    static func refreshRefusal(_ grant: RestrictedGrant) -> String {
        "This socket ('\(grant.name)') is restricted: it serves tokens but does not force a refresh (refresh=1); "
            + "the daemon refreshes on its own, or the owner runs: authctl refresh NAME"
    }

    static func message(_ grant: RestrictedGrant) -> String {
        let accounts = grant.accounts
        let served =
            accounts.isEmpty ? "no account any more" : "only the token of " + accounts.map { "'\($0)'" }.joined(separator: ", ")
        return "This socket ('\(grant.name)') is restricted: it serves \(served) (GET /v1/ping too); "
            + "use the main socket for anything else."
    }
}

/// Restricted socket management behind `GET/POST /v1/sockets` and `DELETE /v1/sockets/{name}`
/// (main socket only). The daemon implements it: it binds the files and runs their listeners.
public protocol RestrictedSocketService: Sendable {
    func addSocket(_ request: RestrictedSocketRequest, owner: UInt32) async throws(WireError) -> RestrictedSocketInfo
    func sockets(owner: UInt32) async -> RestrictedSocketList
    func removeSocket(name: String, owner: UInt32) async throws(WireError)
    /// `account` was removed: no restricted socket serves it any more.
    func accountRemoved(_ account: AccountKey) async
}
