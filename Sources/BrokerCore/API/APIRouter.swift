import BrokerHTTP
import BrokerProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// The socket API (docs/api.md) as an `HTTPHandler` over any `BrokerService`.
///
/// Every request is first checked against the `PeerPolicy` (SO_PEERCRED uid; 403 `forbidden`
/// otherwise), then routed with the caller's uid as the owner of every account it names (another
/// uid's accounts and logins do not exist for it: 404 `unknown_account`, absent from lists): unknown paths 404, wrong methods 405 (with `Allow`), malformed JSON or
/// query parameters 400, service errors with the status of their `WireErrorCode`. Every error body
/// is the envelope `{"error":{"code","message"[,"authorization_url"]}}`.
///
/// Each token handed out is audited in the log as
/// `audit: token account=NAME pid=P uid=U exe=PATH [exe_id=MAJ:MIN:INO] comm=NAME start=TICKS socket=S owner=U` (`audit: id_token …`
/// for ID tokens) — never the token itself (`ProcessIdentity` says what those fields prove). The
/// owner is always the caller: only owners are served.
/// `handleImmediately` serves `GET /v1/accounts/{name}/token` without `min_ttl` from
/// `BrokerService.cachedToken` on the connection thread, with no await (the hot path).
public struct APIRouter: HTTPHandler {
    /// The daemon facts the router reports or needs.
    public struct Configuration: Sendable {
        public var policy: PeerPolicy
        /// Reported by `GET /v1/ping`.
        public var processID: Int32
        /// Wall-clock seconds when the daemon started, for the uptime in `GET /v1/ping`.
        public var startedAt: Double
        /// The listener this router serves: the main socket, or a restricted one (`RestrictedRouteFilter`).
        public var scope: SocketScope
        /// Restricted socket management (`/v1/sockets`); nil where the daemon offers none.
        public var sockets: (any RestrictedSocketService)?
        /// This installation's authctl as `/proc/PID/exe` names it: a caller running it is an
        /// adapter, matched against `--allow-exe` by the program that runs it (`CallerPolicy.speaker`).
        public var adapter: String?

        public init(
            policy: PeerPolicy = PeerPolicy(), processID: Int32 = getpid(), startedAt: Double, scope: SocketScope = .main,
            sockets: (any RestrictedSocketService)? = nil, adapter: String? = nil
        ) {
            self.policy = policy
            self.processID = processID
            self.startedAt = startedAt
            self.scope = scope
            self.sockets = sockets
            self.adapter = adapter
        }
    }

    let service: any BrokerService
    let configuration: Configuration
    let logger: Logger
    let now: @Sendable () -> Double
    /// Per request: the lookup below, remembered for the request's connection (`serving`).
    private(set) var process: @Sendable (Int32) -> ProcessIdentity
    /// Per request, for an account with a caller policy: the peer's running file, remembered like `process`.
    private(set) var running: @Sendable (Int32) -> ExecutableFile
    /// The reads behind `running` and the daemon's `stat` of a path (`CallerExecutable.determined`).
    let executables: ExecutableLookup
    let refusals = RefusalThrottle()

    /// - Parameters:
    ///   - now: wall-clock seconds since 1970 (injected for tests).
    ///   - process: what the audit line records about a pid (the daemon's reads `/proc/PID/exe` and
    ///     `stat`: BrokerProcesses' `ProcessIdentity.of(pid:)`).
    ///   - executables: the file a pid runs, the file at a path and a pid's ancestors, for caller
    ///     policies (`ExecutableLookup`; the daemon's is BrokerProcesses' `.system`).
    public init(
        service: any BrokerService, configuration: Configuration, logger: Logger,
        now: @escaping @Sendable () -> Double = WallClock.now,
        process: @escaping @Sendable (Int32) -> ProcessIdentity,
        executables: ExecutableLookup
    ) {
        self.service = service
        self.configuration = configuration
        self.logger = logger
        self.now = now
        self.process = process
        self.executables = executables
        self.running = executables.running
    }

    public func handleImmediately(_ request: HTTPRequest, connection: ConnectionInfo) -> HTTPResponse? {
        // Refusals and bad requests need no await either; everything else goes to `handle`.
        let peer: PeerCredentials
        let route: APIRoute
        let operation: APIOperation
        switch admit(request, connection: connection) {
        case .failure(let refusal): return refusal.response
        case .success(let admitted): (peer, operation, route) = admitted
        }
        // Both fast paths judge and audit the program that connected (`serving`), as `handle` does.
        let router = serving(connection)
        if operation == .dpopProof {
            return router.immediateDPoPProof(peer.account(route.parameter ?? ""), request: request, peer: peer)
        }
        guard case .token(let name) = route, request.query == nil else { return nil }
        let account = peer.account(name)
        let caller: ProcessIdentity?
        switch router.callerCheck(account, peer: peer) {
        case .refuse(let refusal): return Self.errorResponse(refusal)
        case .askApproval: return nil  // `handle` waits for the decision
        case .serve(let identity): caller = identity
        }
        guard let grant = service.cachedToken(account: account, now: now()) else { return nil }
        return router.served(grant, account: account, to: peer, caller: caller, request: request)
    }

    public func handle(_ request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        switch admit(request, connection: connection) {
        case .failure(let refusal):
            return refusal.response
        case .success(let (peer, operation, route)):
            do {
                return try await serving(connection).answer(operation, route, request: request, peer: peer)
            } catch {
                return Self.errorResponse(error)
            }
        }
    }

    /// Reads who connected (`PeerIdentity`) as soon as the connection is admitted, before its
    /// first request: the record is of the program that called `connect()`, not of whatever the
    /// pid runs by the time a token is asked for (a client that connects, then execs an allowed
    /// program, is still the program that connected).
    public func connectionStarted(_ connection: ConnectionInfo) {
        guard let peer = configuration.policy.admit(connection) else { return }
        _ = PeerIdentity.of(peer.pid, on: connection, resolve: process)
    }

    /// This router with its /proc lookup remembered in `connection` (`PeerIdentity`): the caller
    /// policy and the audit lines of all requests on one connection see the identity read for the
    /// first that needed it.
    private func serving(_ connection: ConnectionInfo) -> APIRouter {
        var router = self
        let (resolve, read) = (process, running)
        router.process = { pid in PeerIdentity.of(pid, on: connection, resolve: resolve) }
        router.running = { pid in PeerIdentity.running(pid, on: connection, resolve: resolve, read: read) }
        return router
    }

    /// The peer check at accept: a uid that may not use the API is answered 403 and closed at
    /// once by the server, so it never holds a connection slot (docs/security.md, "The socket").
    public func refusal(for connection: ConnectionInfo) -> HTTPResponse? {
        guard configuration.policy.admit(connection) == nil else { return nil }
        logRefusal(connection, what: "a connection", [:])
        return forbidden
    }

    private var forbidden: HTTPResponse {
        Self.errorResponse(
            WireError(
                code: .forbidden,
                message: "This authbrokerd serves only its own user (uid \(configuration.policy.daemonUID)); "
                    + "run your own daemon, or ask its administrator for --allow-uid."))
    }

    private func logRefusal(_ connection: ConnectionInfo, what: String, _ metadata: KeyValuePairs<String, String>) {
        let uid = connection.credentials?.uid ?? UInt32.max
        guard refusals.shouldLog(uid: uid, now: now()) else { return }
        let who = connection.credentials.map { "uid \($0.uid) (pid \($0.pid))" } ?? "a connection without credentials"
        logger.warning("refused \(what) from \(who) (logged once a minute per uid)", metadata)
    }

    /// The peer check (again: the router may run behind a server that did not call `refusal`),
    /// then the route and method (`APIOperation`): a response when the request stops here.
    private func admit(
        _ request: HTTPRequest, connection: ConnectionInfo
    ) -> Result<(PeerCredentials, APIOperation, APIRoute), RouterRefusal> {
        guard let peer = configuration.policy.admit(connection) else {
            logRefusal(connection, what: "a request", ["path": String(request.path)])
            return .failure(RouterRefusal(forbidden))
        }
        if case .restricted(let grant) = configuration.scope {
            // Before any 404/405: a restricted socket tells nothing about the rest of the API.
            let route = try? APIRoute.match(request.path)
            let operation = route.flatMap { APIOperation(route: $0, method: request.method) }
            if let message = RestrictedRouteFilter.refusal(operation: operation, route: route, peerUID: peer.uid, grant: grant) {
                return .failure(RouterRefusal(Self.errorResponse(WireError(code: .forbidden, message: message))))
            }
        }
        let route: APIRoute
        do {
            route = try APIRoute.match(request.path)
        } catch {
            switch error {
            case .unknown:
                return .failure(
                    RouterRefusal(
                        Self.errorResponse(
                            status: 404,
                            WireError(code: .invalidRequest, message: "No such API path '\(request.path)'; see docs/api.md."))))
            case .invalidParameter(let why):
                return .failure(RouterRefusal(Self.errorResponse(WireError(code: .invalidRequest, message: why))))
            }
        }
        guard let operation = APIOperation(route: route, method: request.method) else {
            let allowed = route.allowedMethods.joined(separator: ", ")
            var response = Self.errorResponse(
                status: 405,
                WireError(code: .invalidRequest, message: "\(request.method) is not allowed on \(request.path); use \(allowed)."))
            response.headers.add(name: "Allow", value: allowed)
            return .failure(RouterRefusal(response))
        }
        return .success((peer, operation, route))
    }

    /// Performs one operation. The query is checked against what the operation reads (`APIOperation.query`),
    /// and every body and answer goes through the operation's typed `APIEndpoint`.
    private func answer(_ operation: APIOperation, _ route: APIRoute, request: HTTPRequest, peer: PeerCredentials)
        async throws(WireError) -> HTTPResponse
    {
        let query = try RouterQuery(request, operation: operation)
        let name = route.parameter ?? ""
        switch operation {
        case .ping:
            let uptime = max(0, now() - configuration.startedAt)
            return try Self.json(
                .ping, PingResult(version: BrokerVersion.string, pid: configuration.processID, uptimeSeconds: uptime))
        case .status:
            return try Self.json(.status, await service.status(owner: peer.uid))
        case .listAccounts:
            return try Self.json(.listAccounts, await service.accounts(owner: peer.uid))
        case .addAccount:
            let body = try RouterBody.required(.addAccount, from: request)
            let dryRun = try query.integer(.dryRun) != nil
            return try Self.json(
                .addAccount, await service.addAccount(body, owner: peer.uid, dryRun: dryRun), status: dryRun ? 200 : 201)
        case .getAccount:
            return try Self.json(.account(name), await service.account(peer.account(name)))
        case .updateAccount:
            let body = try RouterBody.required(.updateAccount(name), from: request)
            // Renaming is remove + add: the tokens belong to the account under its name.
            guard body.name == name else {
                throw WireError(
                    code: .invalidRequest, message: "The body's name '\(body.name)' differs from '\(name)' in the path.")
            }
            // The one-time code of a caller-policy change rides in a header: the body is the account model.
            let confirmation = request.headers[ConfirmationCode.header]
            return try Self.json(
                .updateAccount(name),
                await service.updateAccount(
                    body, owner: peer.uid, confirmation: confirmation, caller: requester(peer),
                    keepClientSecret: try query.integer(.keepClientSecret) != nil, dryRun: try query.integer(.dryRun) != nil))
        case .removeAccount:
            try await service.removeAccount(peer.account(name), caller: requester(peer))
            await configuration.sockets?.accountRemoved(peer.account(name))
            return HTTPResponse(status: 204)
        case .token:
            let account = peer.account(name)
            let minTTL = try query.integer(.minTTL).map(Double.init)
            let narrowing = try query.narrowing()
            try checkRestrictedNarrowing(narrowing)
            let refresh = try query.integer(.refresh) != nil
            if refresh, case .restricted(let grant) = configuration.scope {
                throw WireError(code: .forbidden, message: RestrictedRouteFilter.refreshRefusal(grant))
            }
            if refresh, minTTL != nil || !narrowing.isEmpty {
                throw WireError(code: .invalidRequest, message: "'refresh' takes no min_ttl, scope, resource or audience.")
            }
            let caller = try await admittedCaller(account, peer: peer)
            let grant =
                refresh
                ? try await service.refreshedToken(account: account)
                : narrowing.isEmpty
                    ? try await service.token(account: account, minTTL: minTTL)
                    : try await service.narrowedToken(account: account, narrowing: narrowing, minTTL: minTTL)
            return served(grant, account: account, to: peer, caller: caller, request: request, narrowing: narrowing)
        case .idToken:
            let account = peer.account(name)
            let minTTL = try query.integer(.minTTL).map(Double.init)
            let caller = try await admittedCaller(account, peer: peer)
            let grant = try await service.idToken(account: account, minTTL: minTTL)
            audit("id_token", account: account, peer: peer, caller: caller)
            var response = try Self.json(.idToken(account: name), grant)
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        case .tokenRejected:
            // A rejected token can trigger a refresh: only a caller that may get the token may report it.
            _ = try await admittedCaller(peer.account(name), peer: peer)
            let body = try RouterBody.required(.tokenRejected(account: name), from: request)
            let result = try await service.tokenRejected(account: peer.account(name), accessToken: body.accessToken)
            return try Self.json(.tokenRejected(account: name), result)
        case .dpopProof:
            return try await answerDPoPProof(account: peer.account(name), request: request, peer: peer)
        case .mcpMessage, .mcpListen, .mcpEndSession:
            return try await answerMCP(operation, account: peer.account(name), request: request, peer: peer)
        case .stepUp:
            return try await answerStepUp(account: peer.account(name), request: request, peer: peer)
        case .login:
            let body = try RouterBody.optional(.login(account: name), from: request) ?? LoginRequest()
            return try Self.json(.login(account: name), await service.startLogin(account: peer.account(name), request: body))
        case .cancelLogin:
            return try Self.json(.cancelLogin(account: name), await service.cancelLogin(account: peer.account(name)))
        case .loginStatus:
            let wait = try query.integer(.wait) ?? 0
            return try Self.json(.loginStatus(id: name), await service.loginStatus(id: name, owner: peer.uid, wait: Double(wait)))
        case .loginCallback:
            let body = try RouterBody.required(.loginCallback, from: request)
            return try Self.json(.loginCallback, await service.loginCallback(url: body.url, owner: peer.uid))
        case .logout:
            _ = try RouterBody.optional(.logout(account: name), from: request)
            return try Self.json(.logout(account: name), await service.logout(account: peer.account(name)))
        case .discovery:
            let body = try RouterBody.required(.discovery, from: request)
            return try Self.json(.discovery, await service.discoveryIssuer(url: body.url, pins: body.pinSHA256 ?? []))
        case .rekey:
            // One key seals every owner's secrets: rotating it is the daemon user's business.
            guard peer.uid == configuration.policy.daemonUID else {
                throw WireError(
                    code: .forbidden,
                    message: "Only the daemon's own user (uid \(configuration.policy.daemonUID)) can rotate its key; "
                        + "ask its administrator.")
            }
            _ = try RouterBody.optional(.rekey, from: request)
            return try Self.json(.rekey, await service.rekey())
        case .metrics:
            return HTTPResponse(
                status: 200, headers: HTTPHeaders([("Content-Type", "text/plain; version=0.0.4; charset=utf-8")]),
                body: Array(service.metrics(owner: peer.uid).utf8))
        case .listSockets, .addSocket, .removeSocket:
            return try await answerSockets(operation, name: name, request: request, peer: peer)
        case .listApprovals, .decideApproval:
            return try await answerApprovals(operation, request: request, peer: peer)
        }
    }

    /// The token answer (plain text or JSON), after writing the audit line.
    private func served(
        _ grant: TokenGrant, account: AccountKey, to peer: PeerCredentials, caller: ProcessIdentity?, request: HTTPRequest,
        narrowing: TokenNarrowing = .none
    ) -> HTTPResponse {
        audit("token", account: account, peer: peer, caller: caller, narrowing: narrowing)
        // A bearer token must not be kept by any cache on the way: `no-store` on either answer.
        if Self.wantsPlainText(request) {
            var body = Array(grant.accessToken.utf8)
            body.append(UInt8(ascii: "\n"))
            return HTTPResponse(status: 200, headers: Self.plainTokenHeaders, body: body)
        }
        var response =
            (try? Self.json(.token(account: account.name), grant))
            ?? Self.errorResponse(WireError(code: .internal, message: "cannot encode the token"))
        response.headers.add(name: "Cache-Control", value: "no-store")
        return response
    }

    /// The plain-text token answer's fields, built once rather than per token.
    static let plainTokenHeaders = HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")])

    /// `audit: KIND account=NAME [method=M origin=O] [scope=S resource=R audience=A] [via=PATH] pid=P uid=U exe=PATH [exe_id=MAJ:MIN:INO] comm=NAME start=TICKS socket=S owner=U`, for each
    /// token that leaves the daemon (never the token). Names collide across owners, so the line names
    /// the owner too; `socket` is `main` or the restricted socket's name it was served on; `via`
    /// the program an adapter ran for, when the caller policy looked (`CallerPolicy.speaker`).
    /// `caller`: the identity the caller policy was checked against, when it was read already.
    func audit(
        _ kind: String, account: AccountKey, peer: PeerCredentials, caller: ProcessIdentity?,
        _ request: KeyValuePairs<String, String> = [:], narrowing: TokenNarrowing = .none
    ) {
        let identity = caller ?? process(peer.pid)
        // `request` (a proof's method and origin) goes right after the account, as docs/api.md shows.
        logger.info(
            AuditLine.format(
                kind, account: account, request: request, narrowing: narrowing, identity: identity, peer: peer,
                socket: configuration.scope.auditName))
    }

    /// On a restricted socket, `forbidden` for a narrowing the socket was not created with
    /// (`RestrictedRouteFilter.narrowingRefusal`); the main socket lets the broker judge it.
    func checkRestrictedNarrowing(_ narrowing: TokenNarrowing) throws(WireError) {
        guard case .restricted(let grant) = configuration.scope,
            let message = RestrictedRouteFilter.narrowingRefusal(narrowing, grant: grant)
        else { return }
        throw WireError(code: .forbidden, message: message)
    }

    /// True when the client's first preferred media type is text/plain (what `authctl token` sends).
    static func wantsPlainText(_ request: HTTPRequest) -> Bool {
        guard let accept = request.headers["Accept"] else { return false }
        return MediaType.first(of: accept, is: "text/plain", list: true)
    }
}

/// A response that ends a request before routing (forbidden, 404, 405, bad path parameter).
struct RouterRefusal: Error {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}

/// Wall-clock seconds since 1970, for code that takes an injectable `now`.
public enum WallClock {
    @Sendable public static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
