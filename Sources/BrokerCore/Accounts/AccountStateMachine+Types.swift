import BrokerCrypto
import BrokerProtocol
import BrokerStore

/// Identifies one caller of `tokenRequested`, so the actor can route a later answer to it.
public struct AccountRequestID: Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "request#\(rawValue)" }
}

extension AccountStateMachine {
    /// Where the account's tokens are in their life. A pending login is tracked beside this state
    /// (`pendingLogin`), so a re-login never stops a valid token from being served.
    public enum State: Sendable, Equatable {
        /// No tokens: never logged in, logged out, or removed.
        case loggedOut
        /// Usable tokens. `checkAt` is when the timer must look again: the proactive refresh time, or the
        /// expiry of a token that cannot be refreshed; nil for a token that never expires.
        case active(TokenSet, checkAt: Double?)
        /// A refresh is in flight or scheduled; the tokens are still served while valid.
        case refreshing(TokenSet, RefreshAttempt)
        /// The tokens are gone or useless; only `authctl login` helps.
        case loginRequired(LoginRequiredReason)
    }

    /// One refresh cycle: consecutive attempts until one succeeds or fails terminally.
    public struct RefreshAttempt: Sendable, Equatable {
        /// 1 for the first try, incremented after each transient failure.
        public var number: Int
        public var phase: Phase

        public enum Phase: Sendable, Equatable {
            /// `startRefresh` was emitted at `startedAt`; a completion event is awaited.
            case inFlight(startedAt: Double)
            /// The attempt starts at `at`: after a transient `failure` (backoff), or, with no failure,
            /// because the one-refresh-per-second cap deferred it (callers then wait for it).
            case scheduled(at: Double, after: RefreshFailure?)
        }

        public init(number: Int, phase: Phase) {
            self.number = number
            self.phase = phase
        }

        /// The first attempt of a new cycle.
        static func first(now: Double) -> RefreshAttempt {
            RefreshAttempt(number: 1, phase: .inFlight(startedAt: now))
        }
    }

    /// A login the daemon started (authorization code or device grant) and now waits on.
    public struct PendingLogin: Sendable, Equatable {
        public var loginID: String
        /// Shown to callers that need a login (`login_pending`) and passed to the notify hook.
        public var authorizationURL: String
        /// After this wall-clock time the login counts as timed out.
        public var deadline: Double

        public init(loginID: String, authorizationURL: String, deadline: Double) {
            self.loginID = loginID
            self.authorizationURL = authorizationURL
            self.deadline = deadline
        }
    }

    /// How a refresh failed, as classified by the daemon from the OIDC engine's error.
    public enum RefreshFailure: Sendable, Equatable {
        /// Network, timeout, TLS, 408/429/5xx, unparseable answer: retry with backoff.
        /// `retryAfter` is the provider's Retry-After in seconds, when it sent one.
        case transient(message: String, retryAfter: Double?)
        /// `invalid_grant`, `invalid_client`, `unauthorized_client`…: retrying cannot help.
        case terminal(message: String)
    }

    /// Why a new login is needed. Messages are for people and never contain secrets.
    public enum LoginRequiredReason: Sendable, Equatable {
        /// The provider rejected the refresh token.
        case refreshRejected(String)
        /// The token expired and there was no refresh token.
        case expired
        case loginFailed(String)
        case loginTimedOut
        /// Security-relevant configuration (issuer, client, endpoints, scopes…) changed: old tokens are void.
        case configurationChanged

        public var message: String {
            switch self {
            case .refreshRejected(let reason): "the provider rejected the refresh: \(reason)"
            case .expired: "the token expired and the login brought no refresh token to renew it; \(OIDCError.offlineAccessHint)"
            case .loginFailed(let reason): "the last login failed: \(reason)"
            case .loginTimedOut: "the last login timed out"
            case .configurationChanged: "the account's configuration changed"
            }
        }
    }

    /// What the notify hook is told (AUTHBROKER_ACCOUNT, AUTHBROKER_REASON, AUTHBROKER_URL).
    public struct Notification: Sendable, Equatable {
        public var account: String
        public var reason: String
        /// The authorization URL when a login is pending.
        public var url: String?
    }

    /// What the actor must do after an event, in order. Order matters: tokens are persisted before any
    /// caller is served them, so a rotated refresh token is never lost to a crash.
    public enum Action: Sendable, Equatable {
        /// Answer these callers with these tokens.
        case serveToken(TokenSet, to: [AccountRequestID])
        /// Answer these callers with this error (`login_required`, `login_pending`, `provider_unavailable`).
        case fail(WireError, to: [AccountRequestID])
        /// Park this caller: it is answered by a later `serveToken`/`fail` naming it (single-flight).
        case waitForRefresh(AccountRequestID)
        /// Call the token endpoint with this refresh token; report the outcome with this generation.
        case startRefresh(refreshToken: Secret, generation: UInt64, attempt: Int)
        /// (Re)arm the account's only timer for this wall-clock time, then send `timerFired`.
        case scheduleWakeUp(at: Double)
        /// Nothing is due: disarm the timer.
        case cancelWakeUp
        /// Store these tokens (refresh and access token in one transaction).
        case persistTokens(TokenSet)
        /// Delete the stored tokens.
        case deleteTokens
        /// Revoke at the provider, best effort (RFC 7009): the refresh token, else the access token.
        case revoke(TokenSet)
        /// Stop the pending login (close its listener) and report `reason` to whoever waits on it.
        case cancelLogin(loginID: String, reason: WireError)
        /// Run the notify hook once.
        case notifyUser(Notification)
    }
}
