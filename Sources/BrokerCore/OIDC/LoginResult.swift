import BrokerStore
import FoundationEssentials
import Synchronization

/// What a successful login yields: the tokens, their ID token validated.
public struct LoginResult: Sendable, Equatable {
    public var tokens: TokenSet
    /// The user the token answer named outside an ID token (`TokenResponse.userID`).
    public var answeredUserID: String?

    public init(tokens: TokenSet, answeredUserID: String? = nil) {
        self.tokens = tokens
        self.answeredUserID = answeredUserID
    }

    /// The validated ID token claims (nil for a plain OAuth login without `openid`).
    public var claims: IDTokenClaims? { tokens.idTokenClaims }
    /// The signed-in user: the ID token's `sub`, else the answer's user id (WorkOS `user.id`).
    public var subject: String? { claims?.subject ?? answeredUserID }
}

/// A login the broker waits on: the loopback redirect flow (`LoginSession`) or the device
/// grant (`DeviceLoginSession`). Every login ends exactly once — success, failure, expiry or
/// cancellation — and `result()` returns that same outcome to every caller.
public protocol LoginFlow: AnyObject, Sendable {
    /// Random, URL-safe; names the login in the socket API (`/v1/logins/{id}`).
    var loginID: String { get }
    /// When the login stops waiting for the user (wall clock).
    var expiresAt: Date { get }
    /// The outcome once the login has ended, nil while it is pending. Never waits.
    var outcome: Result<LoginResult, OIDCError>? { get }
    /// Waits for the outcome. If the *calling task* is cancelled, this caller gets
    /// `.failure(.cancelled)` and the login itself goes on (check `outcome`).
    func result() async -> Result<LoginResult, OIDCError>
    /// Ends the login with `.cancelled` (no effect once it has ended).
    func cancel()
    /// At shutdown: ends the login like `cancel()` unless its code is already being exchanged at
    /// the token endpoint. Returns false for such a login — its answer (tokens the provider has
    /// issued) is coming, bounded by the HTTP client's timeouts, and should be stored.
    func cancelUnlessExchanging() -> Bool
    /// Whether `url` is this login's redirect (private-use URI, or loopback origin and path) with its
    /// `state` (constant time).
    /// Never changes the login: the callback route asks every pending login of the caller.
    func claimsRedirect(_ url: String) -> Bool
    /// Ends the login with the redirect `url` (checks, then the code exchange) and returns its outcome.
    func completeWithRedirect(_ url: String) async -> Result<LoginResult, OIDCError>
}

extension LoginFlow {
    /// Flows without a redirect (device grant, tests) claim none.
    public func claimsRedirect(_ url: String) -> Bool { false }

    public func completeWithRedirect(_ url: String) async -> Result<LoginResult, OIDCError> {
        .failure(.malformedCallback("this login takes no redirect"))
    }

    /// Flows that never exchange a code in the background (device polling, tests): a plain cancel.
    public func cancelUnlessExchanging() -> Bool {
        cancel()
        return true
    }
}

/// The once-only outcome of a login and the callers waiting for it.
final class LoginCompletion: Sendable {
    private struct State {
        var outcome: Result<LoginResult, OIDCError>?
        var waiters: [UInt64: CheckedContinuation<Result<LoginResult, OIDCError>, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    var outcome: Result<LoginResult, OIDCError>? { state.withLock { $0.outcome } }

    /// Publishes `outcome` and wakes every waiter; false (and nothing changes) when the login
    /// had already ended.
    @discardableResult
    func finish(_ outcome: Result<LoginResult, OIDCError>) -> Bool {
        let waiters: [CheckedContinuation<Result<LoginResult, OIDCError>, Never>]? = state.withLock { state in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(returning: outcome) }
        return true
    }

    func wait() async -> Result<LoginResult, OIDCError> {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate: Result<LoginResult, OIDCError>? = state.withLock { state in
                    if let outcome = state.outcome { return outcome }
                    if Task.isCancelled { return .failure(.cancelled) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: .failure(.cancelled))
        }
    }
}
