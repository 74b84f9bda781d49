import BrokerHTTP

/// What a caller (the refresh scheduler) should do after a failed request.
public enum FailureDisposition: Sendable, Equatable {
    /// Retrying the same request cannot help: the grant or the client is no longer accepted.
    /// The account needs a new login; never retry in a loop.
    case terminal
    /// The failure may pass by itself (network, overload): retry with backoff, no sooner than
    /// `retryAfter` when the server said so.
    case transient(retryAfter: Duration?)
}

extension OIDCError {
    /// OAuth error codes after which the grant or client is dead: RFC 6749 §5.2's, GitHub's own
    /// names for them (`bad_refresh_token`: expired, revoked or already used in a rotation;
    /// `incorrect_client_credentials`; `bad_verification_code` for a code exchange), and OpenID
    /// Connect Core §3.1.2.6's "the user must be there" codes, which Entra answers at the token
    /// endpoint for MFA and Conditional Access (AADSTS50076/50079/53003): only a new login helps.
    static let grantRejections: Set<String> = [
        "invalid_grant", "invalid_client", "unauthorized_client", "unsupported_grant_type",
        "bad_refresh_token", "incorrect_client_credentials", "bad_verification_code",
        "interaction_required", "login_required", "consent_required",
    ]

    /// OAuth error codes that announce a passing condition (RFC 6749 §4.1.2.1, RFC 8628 §3.5).
    static let transientOAuthErrors: Set<String> = [
        "temporarily_unavailable", "server_error", "slow_down", "authorization_pending",
    ]

    /// Classifies the failure for the scheduler.
    ///
    /// Transient: no HTTP answer at all (network, DNS, timeout, TLS), HTTP 3xx (never followed: a
    /// captive portal, a proxy or a provider's maintenance redirect — nothing the grant did), 408,
    /// 429 and 5xx (whatever the body says), an answer that is not the expected JSON (captive
    /// portal, truncated proxy page), the OAuth codes `temporarily_unavailable` / `server_error`,
    /// a failure of the broker's own vault, and an ID token signed by a key the cached JWKS lacks
    /// while its refetch is rate-limited.
    /// Terminal: the dead-grant codes, any other OAuth error (the same request will be refused
    /// again), other 4xx statuses, configuration and validation failures. A refresh reads this
    /// through `refreshDisposition`, which deletes tokens only when `rejectsGrant`.
    public var disposition: FailureDisposition {
        switch self {
        case .transport(let error):
            // A TLS failure may be a captive portal or a proxy hiccup; a bad URL will not heal.
            if case .invalidURL = error { return .terminal }
            return .transient(retryAfter: nil)
        case .oauthError(let response, let status, let retryAfter):
            if Self.isTransientStatus(status) || Self.transientOAuthErrors.contains(response.error) {
                return .transient(retryAfter: retryAfter)
            }
            return .terminal
        case .httpStatus(let status, _, let retryAfter):
            return Self.isTransientStatus(status) ? .transient(retryAfter: retryAfter) : .terminal
        case .malformedResponse, .discoveryUnavailable, .storage:
            return .transient(retryAfter: nil)
        case .idToken(.unknownKeyRefetchDeferred(_, let retryAfter)):
            return .transient(retryAfter: retryAfter)
        default:
            return .terminal
        }
    }

    /// The provider's chain failed the account's `--pin-sha256` (wire code `tls_pin_mismatch`).
    public var isPinMismatch: Bool {
        if case .transport(.tls(.pinMismatch)) = self { return true }
        return false
    }

    /// True only for a real answer that the grant or the client is dead: an error object (RFC 6749
    /// §5.2, a JSON object with a string `error`) carrying one of `grantRejections`, with the status
    /// §5.2 gives it (400, 401 for client authentication) or GitHub's 200. This is the one failure
    /// after which a refresh token is deleted; an HTML page, a 5xx, an unknown code or a body that
    /// is not such an object never is.
    public var rejectsGrant: Bool {
        guard case .oauthError(let response, let status, _) = self, [200, 400, 401].contains(status) else { return false }
        return Self.grantRejections.contains(response.error)
    }

    /// The refresh scheduler's reading of a failed refresh: terminal (login required, tokens deleted)
    /// only when `rejectsGrant`. Any other refusal by the token endpoint — another OAuth error, a
    /// 4xx page from a proxy or firewall, an error body that is no §5.2 object — keeps the refresh
    /// token and is retried with backoff, logged at every attempt: deleting a grant the provider
    /// never rejected would force a login that may not be needed. Failures that are not the
    /// provider's answer (configuration, a successful answer failing validation) keep `disposition`.
    public var refreshDisposition: FailureDisposition {
        if rejectsGrant { return .terminal }
        switch self {
        case .oauthError(_, _, let retryAfter), .httpStatus(_, _, let retryAfter): return .transient(retryAfter: retryAfter)
        default: return disposition
        }
    }

    /// True when the error is one of the "dead grant" codes of RFC 6749 §5.2.
    public var isInvalidGrant: Bool {
        if case .oauthError(let response, _, _) = self { return response.error == "invalid_grant" }
        return false
    }

    static func isTransientStatus(_ status: Int) -> Bool {
        (300...399).contains(status) || status == 408 || status == 429 || (500...599).contains(status)
    }
}
