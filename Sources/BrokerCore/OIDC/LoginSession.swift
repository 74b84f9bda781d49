import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import FoundationEssentials
import Synchronization

/// One authorization-code login through a loopback redirect (RFC 8252 §7.3, RFC 7636, OIDC
/// Core §3.1), from binding the listener to validated tokens.
///
/// ```swift
/// let login = try await LoginSession.start(client: client, metadata: metadata, configuration: config)
/// open(login.authorizationURL)                  // the user's browser
/// switch await login.result() { … }             // tokens + validated ID token claims, or why not
/// ```
///
/// Order: bind 127.0.0.1 / ::1 / both for `localhost` (ephemeral port unless fixed) → build the authorization request
/// with the *bound* redirect URI (and push it, RFC 9126, when the account uses PAR) → wait. The listener exists only while the login is pending:
/// it answers only GET on the exact redirect path (`LoginCallback` decides; stray requests such
/// as /favicon.ico get 404 and do not consume the login), exchanges the code (PKCE verifier,
/// ID token checked against the nonce; off the listener's thread) before answering, shows the browser a page saying how it
/// ended, and is closed before the outcome is published. The login ends at the deadline
/// (`loginExpired`), on `cancel()`, or with the first callback or pasted URL.
public final class LoginSession: LoginFlow {
    public let loginID: String
    /// The URL to open in the browser.
    public let authorizationURL: String
    /// The redirect URI registered in the request (with the bound port).
    public let redirectURI: RedirectURI
    public let expiresAt: Date

    private let pendingLogin: PendingAuthorization
    private let client: OIDCClient
    private let metadata: ProviderMetadata
    private let configuration: ClientConfiguration
    private let state: Mutex<State>
    private let completion = LoginCompletion()

    private struct State {
        var callback: LoginCallback
        /// Until the login ends: the servers (one per bound address, closed at the end) and the
        /// deadline timer.
        var servers: [HTTPServer] = []
        var deadlineTimer: Task<Void, Never>?
        /// True once a callback or paste took the login (its exchange may be in flight).
        var taken = false
        /// True once the outcome is decided (it is published after the listener closed).
        var ended = false
    }

    /// Binds the redirect listener, builds the authorization request and starts waiting.
    /// Throws when the redirect settings are invalid, the port cannot be bound, or the
    /// metadata/configuration cannot make an authorization request (no endpoint, no S256).
    public static func start(
        client: OIDCClient, metadata: ProviderMetadata, configuration: ClientConfiguration,
        redirect: LoopbackRedirect = LoopbackRedirect(), privateUse: PrivateUseRedirectURI? = nil,
        timeout: Duration = AuthorizationRequest.defaultLifetime, randomBytes: RandomBytes = .system
    ) async throws(OIDCError) -> LoginSession {
        guard timeout > .zero else { throw .invalidConfiguration("the login timeout must be positive") }
        let (listeners, redirectURI) = try bindRedirect(redirect, privateUse: privateUse)
        // Pushed first when the account and provider use PAR: the redirect URI pushed is the bound one.
        let request = try await client.loginAuthorizationRequest(
            metadata: metadata, client: configuration, redirectURI: redirectURI, lifetime: timeout, randomBytes: randomBytes)
        let session = LoginSession(
            loginID: try randomBytes.base64URL(count: 16), request: request, client: client, metadata: metadata,
            configuration: configuration)
        session.listen(on: listeners, timeout: timeout)
        return session
    }

    /// The listeners and the redirect URI they make: none for a private-use scheme redirect, whose
    /// URL comes back through `completeWithPastedURL` (the daemon's callback route).
    private static func bindRedirect(
        _ redirect: LoopbackRedirect, privateUse: PrivateUseRedirectURI?
    ) throws(OIDCError) -> ([HTTPListener], RedirectURI) {
        if let privateUse { return ([], RedirectURI(privateUse: privateUse)) }
        try redirect.validate()
        let listeners: [HTTPListener]
        do {
            listeners = try redirect.bind()
        } catch {
            throw .invalidConfiguration(
                "cannot listen on \(redirect.bindDescription) for the login redirect (\(error)); "
                    + "choose another redirect port or leave it ephemeral")
        }
        let port = listeners.first?.port ?? redirect.port
        return (listeners, try RedirectURI(host: redirect.host, port: port, path: redirect.path))
    }

    private init(
        loginID: String, request: AuthorizationRequest, client: OIDCClient, metadata: ProviderMetadata,
        configuration: ClientConfiguration
    ) {
        self.loginID = loginID
        authorizationURL = request.url
        redirectURI = request.pendingLogin.redirectURI
        expiresAt = request.pendingLogin.deadline
        pendingLogin = request.pendingLogin
        self.client = client
        self.metadata = metadata
        self.configuration = configuration
        state = Mutex(State(callback: LoginCallback(pendingLogin: request.pendingLogin)))
    }

    public var outcome: Result<LoginResult, OIDCError>? { completion.outcome }

    public func result() async -> Result<LoginResult, OIDCError> { await completion.wait() }

    public func cancel() { end(with: .failure(.cancelled)) }

    public func cancelUnlessExchanging() -> Bool { end(with: .failure(.cancelled), unlessTaken: true) }

    /// The paste fallback, for a browser on another machine: the user copies the full URL the
    /// browser was redirected to (it fails to load there, or the browser could not open its
    /// private-use scheme); also how the callback route completes a private-use scheme login. A URL that is not this login's
    /// redirect URI (scheme, host, port, path) gives `.malformedCallback` and leaves the login
    /// pending; otherwise it ends the login like a callback would, and the login's outcome is
    /// returned.
    public func completeWithPastedURL(_ url: String) async -> Result<LoginResult, OIDCError> {
        switch await completeWithRedirect(url) {
        case .failure(.loginAlreadyFinished): await completion.wait()
        case let outcome: outcome
        }
    }

    public func claimsRedirect(_ url: String) -> Bool { state.withLock { $0.callback.claims(url: url) } }

    /// Like the paste, but a redirect that arrives after another one took the login, or after it
    /// ended, is refused as `.loginAlreadyFinished` rather than answered with the login's outcome:
    /// the callback route tells a replayed redirect apart from the one that completed the login.
    public func completeWithRedirect(_ url: String) async -> Result<LoginResult, OIDCError> {
        let outcome = takeCallback { $0.handlePasted(url: url, now: client.time.now()) }
        switch outcome {
        case .notForUs:
            return .failure(
                .malformedCallback("the pasted URL is not the redirect of this login (\(redirectURI) with code and state)"))
        case .failed(.loginAlreadyFinished, _):
            return .failure(.loginAlreadyFinished)
        case .failed, .completed:
            _ = await conclude(outcome)
            return await completion.wait()
        }
    }

    // MARK: Listener

    /// Small limits and short timeouts: a browser sends one small GET; anything else is noise.
    /// TCP has no peer credentials, so any local user can connect: a connection that sends no
    /// request is closed after 5 s, and at the cap a new connection (the browser's) evicts the
    /// oldest one that is still waiting for input — idle connections cannot hold a login hostage.
    static var listenerConfiguration: HTTPServerConfiguration {
        var configuration = HTTPServerConfiguration()
        configuration.limits = HTTPLimits(maxHeaderBytes: 8 * 1024, maxHeaderFields: 64, maxBodyBytes: 1024)
        configuration.readTimeout = .seconds(5)
        configuration.requestDeadline = .seconds(10)
        configuration.idleTimeout = .seconds(10)
        configuration.firstRequestTimeout = .seconds(5)
        configuration.maxConnections = 16
        configuration.drainTimeout = .seconds(2)
        return configuration
    }

    private func listen(on listeners: [HTTPListener], timeout: Duration) {
        let servers = listeners.map {
            HTTPServer.start(listener: $0, configuration: Self.listenerConfiguration, handler: CallbackHandler(session: self))
        }
        let sleep = client.time.sleep
        let timer = Task { [weak self] in
            do { try await sleep(timeout) } catch { return }
            self?.expire()
        }
        state.withLock { state in
            state.servers = servers
            state.deadlineTimer = timer
        }
    }

    /// One request on the listener: the page for the browser, after the exchange when the
    /// request completed the login.
    fileprivate func handle(_ request: HTTPRequest) async -> HTTPResponse {
        let outcome = takeCallback { $0.handle(request, now: client.time.now()) }
        return await conclude(outcome)
    }

    /// Runs `body` on the callback validator and marks the login taken unless the request was
    /// not for us. After the login ended (expired, cancelled), a redirect is a replay: it must
    /// not start a code exchange whose tokens nobody would keep.
    private func takeCallback(_ body: (inout LoginCallback) -> CallbackOutcome) -> CallbackOutcome {
        state.withLock { state in
            let outcome = body(&state.callback)
            if case .notForUs = outcome { return outcome }
            if state.ended { return .failed(.loginAlreadyFinished, response: CallbackPage.failure(.loginAlreadyFinished)) }
            state.taken = true
            return outcome
        }
    }

    /// Finishes the login for a callback outcome and returns the browser's page.
    private func conclude(_ outcome: CallbackOutcome) async -> HTTPResponse {
        switch outcome {
        case .notForUs(let response):
            return response
        case .failed(let error, let response):
            // A replay must not overwrite how the login really ended.
            if error != .loginAlreadyFinished { end(with: .failure(error)) }
            return response
        case .completed(let code, _):
            let result = await exchange(code)
            end(with: result)
            switch result {
            case .success: return CallbackPage.success
            case .failure(let error): return CallbackPage.failure(error)
            }
        }
    }

    /// Exchanges the code off the listener's connection thread (`ProviderTask`): the callback's
    /// handler runs there, the exchange — provider JSON, JWKS, signature and ID token checks —
    /// must not. The browser's request waits for the outcome, then gets its page.
    private func exchange(_ code: Secret) async -> Result<LoginResult, OIDCError> {
        let (client, pendingLogin, metadata, configuration) = (client, pendingLogin, metadata, configuration)
        return await ProviderTask.run { () async throws(OIDCError) in
            try await client.exchangeCode(code, pendingLogin: pendingLogin, metadata: metadata, client: configuration)
        }
    }

    /// The deadline passed: end the login unless a callback already took it (its exchange
    /// is bounded by the HTTP client's own timeouts).
    private func expire() {
        end(with: .failure(.loginExpired), unlessTaken: true)
    }

    /// Closes the listener, then publishes `result` (the first result wins). Never waits for
    /// the server here: this may run inside one of its handlers. `unlessTaken`: do nothing
    /// when a callback already took the login (checked under the same lock), and return false.
    @discardableResult
    private func end(with result: Result<LoginResult, OIDCError>, unlessTaken: Bool = false) -> Bool {
        let ended = state.withLock { state -> (first: Bool, [HTTPServer], Task<Void, Never>?)? in
            if unlessTaken && state.taken { return nil }
            // Decided by the flag, not by servers left to close: a private-use login has none.
            let first = !state.ended
            state.ended = true
            defer {
                state.servers = []
                state.deadlineTimer = nil
            }
            return (first, state.servers, state.deadlineTimer)
        }
        guard let (first, servers, timer) = ended else { return false }
        timer?.cancel()
        guard first else { return true }
        let completion = completion
        Task {
            for server in servers { await server.stop() }
            completion.finish(result)
        }
        return true
    }
}

/// The redirect listener's handler. Holds the session strongly: the session drops the server
/// (and so this handler) when the login ends, which always happens by the deadline.
private struct CallbackHandler: HTTPHandler {
    let session: LoginSession

    func handle(_ request: HTTPRequest, connection: ConnectionInfo) async -> HTTPResponse {
        await session.handle(request)
    }
}
