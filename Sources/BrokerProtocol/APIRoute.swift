/// One path of the socket API (docs/api.md): matched from a request path by the daemon, built into
/// one by the client, with the same checks on its parameters both ways.
///
/// Path parameters are checked at the edge: account names must pass `AccountName.problem`, login
/// ids are short base64url/hex tokens. Anything else is not a route (404), and the client refuses
/// to build a path the daemon would refuse. The methods a path answers, and what each takes and
/// returns, are `APIOperation`'s.
public enum APIRoute: Equatable, Sendable {
    case ping
    case status
    case accounts
    case account(String)
    case token(String)
    case idToken(String)
    case tokenRejected(String)
    /// A DPoP proof (and the token it binds) for one request to a resource server.
    case dpopProof(String)
    /// The account's MCP server (its `resource_url`), relayed by the daemon (`authctl mcp`).
    case mcp(String)
    /// A resource server's `insufficient_scope` challenge, reported by any client (step-up).
    case stepUp(String)
    case login(String)
    case loginStatus(String)
    /// A private-use scheme redirect handed over by `authctl callback`.
    case loginCallback
    case logout(String)
    /// Reads a discovery document for `authctl account add --provider` (its issuer, nothing stored).
    case discovery
    case rekey
    case metrics
    /// Restricted sockets (list, add); management happens on the main socket only.
    case sockets
    case socket(String)
    /// `--confirm` approvals (list, decide); main socket only.
    case approvals

    /// The path with its parameter as a placeholder, as docs/api.md writes it.
    public var template: String {
        switch self {
        case .ping: "/v1/ping"
        case .status: "/v1/status"
        case .accounts: "/v1/accounts"
        case .account: "/v1/accounts/{name}"
        case .token: "/v1/accounts/{name}/token"
        case .idToken: "/v1/accounts/{name}/id_token"
        case .tokenRejected: "/v1/accounts/{name}/token/rejected"
        case .dpopProof: "/v1/accounts/{name}/dpop-proof"
        case .mcp: "/v1/accounts/{name}/mcp"
        case .stepUp: "/v1/accounts/{name}/step-up"
        case .login: "/v1/accounts/{name}/login"
        case .loginStatus: "/v1/logins/{id}"
        case .loginCallback: "/v1/logins/callback"
        case .logout: "/v1/accounts/{name}/logout"
        case .discovery: "/v1/discovery"
        case .rekey: "/v1/rekey"
        case .metrics: "/metrics"
        case .sockets: "/v1/sockets"
        case .socket: "/v1/sockets/{name}"
        case .approvals: "/v1/approvals"
        }
    }

    /// The account name or login id in the path, nil for paths without one.
    public var parameter: String? {
        switch self {
        case .ping, .status, .accounts, .rekey, .metrics, .loginCallback, .discovery, .sockets, .approvals: nil
        case .account(let value), .token(let value), .idToken(let value), .tokenRejected(let value), .dpopProof(let value),
            .mcp(let value), .stepUp(let value), .login(let value),
            .loginStatus(let value), .logout(let value), .socket(let value):
            value
        }
    }

    /// The request path (no query), after the same parameter check `match` applies.
    public func path() throws(Mismatch) -> String {
        guard let parameter else { return template }
        if case .loginStatus = self {
            return "/v1/logins/" + (try Self.loginID(parameter))
        }
        if case .socket = self {
            return "/v1/sockets/" + (try Self.socketName(parameter))
        }
        let name = try Self.accountName(parameter)
        return template.replacingPlaceholder(with: name)
    }

    /// The methods this route answers; anything else is 405 with an `Allow` header.
    public var allowedMethods: [String] {
        APIOperation.allCases.filter { $0.routeTemplate == template }.map(\.method)
    }

    /// Why a path did not match: unknown (404) or a path parameter that is malformed (400).
    public enum Mismatch: Error, Equatable, Sendable {
        case unknown
        case invalidParameter(String)
    }

    /// Matches `path` (no query) to a route.
    public static func match(_ path: Substring) throws(Mismatch) -> APIRoute {
        // A trailing "/" or "//" gives an empty segment: not ours. So is a path with more
        // segments than any route has (five: v1, accounts, NAME, token, rejected), however long.
        guard let segments = pathSegments(of: path, limit: 5) else { throw .unknown }
        switch segments.count {
        case 1 where segments[0] == "metrics": return .metrics
        case 2 where segments[0] == "v1": return try top(segments[1])
        case 3 where segments[0] == "v1" && segments[1] == "accounts": return .account(try accountName(segments[2]))
        // Login ids are 22 base64url characters (16 random bytes): "callback" is never one.
        case 3 where segments[0] == "v1" && segments[1] == "logins" && segments[2] == "callback": return .loginCallback
        case 3 where segments[0] == "v1" && segments[1] == "logins": return .loginStatus(try loginID(segments[2]))
        case 3 where segments[0] == "v1" && segments[1] == "sockets": return .socket(try socketName(segments[2]))
        case 4 where segments[0] == "v1" && segments[1] == "accounts":
            let name = try accountName(segments[2])
            switch segments[3] {
            case "token": return .token(name)
            case "id_token": return .idToken(name)
            case "login": return .login(name)
            case "logout": return .logout(name)
            case "dpop-proof": return .dpopProof(name)
            case "mcp": return .mcp(name)
            case "step-up": return .stepUp(name)
            default: throw .unknown
            }
        case 5 where segments[0] == "v1" && segments[1] == "accounts" && segments[3] == "token" && segments[4] == "rejected":
            return .tokenRejected(try accountName(segments[2]))
        default: throw .unknown
        }
    }

    /// The segments between the slashes of `path` ("/v1/ping" → ["v1", "ping"]), nil unless it
    /// starts with "/", has no empty segment and at most `limit` of them. Cut on UTF-8 bytes
    /// ('/' is ASCII) and kept as Substrings: a Character split, a key path and a String per
    /// segment were most of the token route's routing cost (docs/BENCHMARKS-archive.md,
    /// "Token route: the remaining daemon CPU").
    static func pathSegments(of path: Substring, limit: Int) -> [Substring]? {
        let bytes = path.utf8
        guard bytes.first == UInt8(ascii: "/") else { return nil }
        var segments: [Substring] = []
        segments.reserveCapacity(limit)
        var start = bytes.index(after: bytes.startIndex)
        while true {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
            guard end > start, segments.count < limit else { return nil }
            segments.append(path[start..<end])
            guard end < bytes.endIndex else { return segments }
            start = bytes.index(after: end)
        }
    }

    private static func top(_ segment: Substring) throws(Mismatch) -> APIRoute {
        switch segment {
        case "ping": .ping
        case "status": .status
        case "accounts": .accounts
        case "rekey": .rekey
        case "discovery": .discovery
        case "sockets": .sockets
        case "approvals": .approvals
        default: throw .unknown
        }
    }

    private static func accountName<Segment: StringProtocol>(_ segment: Segment) throws(Mismatch) -> String {
        let name = String(segment)
        if let problem = AccountName.problem(with: name) {
            throw .invalidParameter("invalid account name in the path: \(problem)")
        }
        return name
    }

    private static func socketName<Segment: StringProtocol>(_ segment: Segment) throws(Mismatch) -> String {
        let name = String(segment)
        if let problem = RestrictedSocketName.problem(with: name) {
            throw .invalidParameter("invalid socket name in the path: \(problem)")
        }
        return name
    }

    /// Login ids are generated by the daemon (base64url or hex); anything else cannot be one.
    private static func loginID<Segment: StringProtocol>(_ segment: Segment) throws(Mismatch) -> String {
        let valid =
            segment.utf8.count <= 128
            && segment.utf8.allSatisfy { byte in
                (byte >= 97 && byte <= 122) || (byte >= 65 && byte <= 90) || (byte >= 48 && byte <= 57)
                    || byte == 45 || byte == 95
            }
        guard valid else { throw .invalidParameter("invalid login id in the path") }
        return String(segment)
    }
}

extension String {
    /// The template with its one `{…}` placeholder replaced (no Foundation in the CLI).
    fileprivate func replacingPlaceholder(with value: String) -> String {
        guard let open = firstIndex(of: "{"), let close = self[open...].firstIndex(of: "}") else { return self }
        return String(self[..<open]) + value + String(self[index(after: close)...])
    }
}
