import BrokerCrypto
import BrokerHTTP
import FoundationEssentials

/// What the redirect listener should do with one request.
public enum CallbackOutcome: Sendable {
    /// Not the redirect (favicon, stray request, wrong method): answer `response` (404/405)
    /// and keep the login pending.
    case notForUs(HTTPResponse)
    /// The login succeeded up to the code: answer `response` (a success page), then exchange `code`.
    case completed(code: Secret, response: HTTPResponse)
    /// The login is over and failed with `error`: answer `response` (a page explaining it).
    case failed(OIDCError, response: HTTPResponse)

    /// The page to send back to the browser.
    public var response: HTTPResponse {
        switch self {
        case .notForUs(let response), .completed(_, let response), .failed(_, let response): response
        }
    }
}

/// Validates the authorization response (RFC 6749 §4.1.2, RFC 9207, RFC 8252) for one pending
/// login. Pure: the listener hands it the raw request target; the paste fallback hands it the
/// full redirect URL.
///
/// Invariants: only the exact redirect path can end the login; the first request on that path
/// ends it one way or the other (success, refusal, or forged/stale state), and every later one
/// is refused as a replay. Checks run in this order, each failure ending the login:
/// deadline, duplicate parameters, `state` (constant time), `iss`, `error`, `code`.
public struct LoginCallback: Sendable {
    public let pendingLogin: PendingAuthorization
    public private(set) var isFinished = false

    public init(pendingLogin: PendingAuthorization) {
        self.pendingLogin = pendingLogin
    }

    /// Handles a request received by the loopback listener.
    public mutating func handle(_ request: HTTPRequest, now: Date) -> CallbackOutcome {
        guard request.path == pendingLogin.redirectURI.path else { return .notForUs(CallbackPage.notFound) }
        guard request.method == "GET" else { return .notForUs(CallbackPage.methodNotAllowed) }
        return handle(target: request.target, now: now)
    }

    /// Handles a request target (`/callback?code=…&state=…`) received on the redirect listener.
    public mutating func handle(target: String, now: Date) -> CallbackOutcome {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard pendingLogin.redirectURI.privateUse == nil, parts[0] == pendingLogin.redirectURI.path else {
            return .notForUs(CallbackPage.notFound)
        }
        return finish(query: parts.count > 1 ? parts[1] : "", now: now)
    }

    /// The paste fallback (the user copies the full redirect URL from a browser on another
    /// machine, or one that could not open a private-use scheme) and `authctl callback`'s URL.
    /// Anything but our redirect URI (scheme, host, port, path) is not for us.
    public mutating func handlePasted(url: String, now: Date) -> CallbackOutcome {
        guard let query = redirectQuery(url) else { return .notForUs(CallbackPage.notFound) }
        return finish(query: query, now: now)
    }

    /// Whether `url` is this login's redirect — exactly its private-use URI, or its loopback
    /// origin (`http://127.0.0.1:PORT`, the bound port) and path — carrying its `state` (constant
    /// time): how the callback route picks the one pending login a URL is for without touching
    /// the others. A loopback login claims a pasted redirect too (`authctl callback` in a second
    /// terminal, the user's paste), with the same checks its listener makes.
    public func claims(url: String) -> Bool {
        guard let query = redirectQuery(url), let fields = try? FormURLEncoding.decode(query) else { return false }
        return fields.contains { $0.name == "state" && ConstantTime.equals($0.value, pendingLogin.state) }
    }

    /// The query of `url` when its scheme, host, port and path are exactly this login's redirect
    /// URI; nil otherwise. Whitespace is dropped first: terminals wrap long pasted lines.
    private func redirectQuery(_ url: String) -> Substring? {
        let trimmed = url.filter { !$0.isWhitespace }
        if let privateUse = pendingLogin.redirectURI.privateUse { return privateUse.callbackQuery(trimmed) }
        let redirect = pendingLogin.redirectURI
        guard let parsed = try? EndpointURL(parsing: trimmed, what: "pasted URL"),
            parsed.origin == "http://\(redirect.host.rawValue):\(redirect.port)", parsed.path == redirect.path
        else { return nil }
        return Substring(parsed.query ?? "")
    }

    /// The redirect arrived: the first one ends the login one way or the other, later ones are replays.
    private mutating func finish(query: Substring, now: Date) -> CallbackOutcome {
        guard !isFinished else { return .failed(.loginAlreadyFinished, response: CallbackPage.failure(.loginAlreadyFinished)) }
        isFinished = true
        switch validate(query: query, now: now) {
        case .success(let code): return .completed(code: code, response: CallbackPage.success)
        case .failure(let error): return .failed(error, response: CallbackPage.failure(error))
        }
    }

    private func validate(query: Substring, now: Date) -> Result<Secret, OIDCError> {
        guard now < pendingLogin.deadline else { return .failure(.loginExpired) }
        guard let pairs = try? FormURLEncoding.decode(query) else {
            return .failure(.malformedCallback("bad percent-encoding"))
        }
        var fields: [String: String] = [:]
        for field in pairs {
            let (name, value) = (field.name, field.value)
            // RFC 6749 §3.1: parameters must not repeat; a repeated one is an injection attempt.
            guard fields.updateValue(value, forKey: name) == nil else {
                return .failure(.malformedCallback("parameter '\(ProviderText.sanitize(name))' appears twice"))
            }
        }
        guard let state = fields["state"], ConstantTime.equals(state, pendingLogin.state) else {
            return .failure(.stateMismatch)
        }
        if let iss = fields["iss"] {
            guard iss == pendingLogin.issuer else {
                return .failure(.callbackIssuerMismatch(expected: pendingLogin.issuer, found: ProviderText.sanitize(iss)))
            }
        } else if pendingLogin.requiresIssuerParameter {
            return .failure(.callbackIssuerMissing)
        }
        if let error = fields["error"] {
            return .failure(
                .authorizationFailed(
                    error: ProviderText.sanitize(error), description: fields["error_description"].map(ProviderText.sanitizeProse))
            )
        }
        guard let code = fields["code"], !code.isEmpty else { return .failure(.missingCode) }
        return .success(Secret(code))
    }
}
