import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import BrokerStore
import FoundationEssentials
import WireFormats

/// A successful token endpoint answer (RFC 6749 §5.1), secrets wrapped.
public struct TokenResponse: Sendable, Equatable {
    public var accessToken: Secret
    /// Always "Bearer" once parsed (other types are refused).
    public var tokenType: String
    /// `expires_in` in seconds, nil when the provider did not say.
    public var expiresIn: Int?
    public var refreshToken: Secret?
    public var idToken: Secret?
    /// The granted scope when the provider states it (it may differ from the requested one).
    public var scope: String?
    /// The signed-in user as the answer names it outside an ID token: WorkOS User Management's
    /// `user.id`. Display only (status, "Signed in … as"); an ID token's `sub` takes precedence.
    public var userID: String?

    public init(
        accessToken: Secret, tokenType: String = "Bearer", expiresIn: Int? = nil, refreshToken: Secret? = nil,
        idToken: Secret? = nil, scope: String? = nil, userID: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.userID = userID
    }

    /// Parses an answer of the token endpoint (or of device-code polling). A 200 must be a JSON
    /// object with a non-empty `access_token`; `token_type` must be Bearer (case-insensitive,
    /// RFC 6749 §5.1, which makes it required). Only answers to `json` requests may omit it (WorkOS
    /// User Management never sends one), and are read as Bearer. A 200 carrying a string `error` is a
    /// §5.2 error (GitHub); anything else is a §5.2 error or a bare HTTP status.
    public static func parse(
        _ response: HTTPResponse, endpoint: String = "token_endpoint", now: Date, format: TokenRequestFormat = .form,
        dpop: Bool = false
    ) throws(OIDCError) -> TokenResponse {
        guard response.status == 200 else { throw OIDCHTTP.failure(response, endpoint: endpoint, now: now) }
        let object = try OIDCHTTP.jsonObject(response, endpoint: endpoint)
        // GitHub answers token and device-polling errors with HTTP 200 (`{"error":"bad_refresh_token"}`):
        // an `error` member makes the answer an OAuth error whatever the status, never a success.
        if let error = OIDCHTTP.oauthError(
            in: object, status: response.status, retryAfter: RetryAfter.from(response.headers, now: now))
        {
            throw error
        }
        guard let access = object["access_token"]?.stringValue, !access.isEmpty else {
            throw .malformedResponse(endpoint: endpoint, reason: "no access_token")
        }
        // Missing in a form answer: terminal like a foreign type (retrying gets the same answer).
        guard let type = object["token_type"]?.stringValue ?? (format == .json ? "Bearer" : nil) else {
            throw .unsupportedTokenType("")
        }
        // A proved request must get a DPoP-bound token (RFC 9449 §5): a Bearer one would be served
        // as if it were sender-constrained; an unproved one must not get a DPoP one.
        let expected = dpop ? "DPoP" : "Bearer"
        guard type.lowercased() == expected.lowercased() else { throw .unsupportedTokenType(ProviderText.sanitize(type)) }
        var expiresIn: Int?
        if let value = object["expires_in"], value != .null {
            guard let seconds = value.numberValue, seconds.isFinite, seconds >= 0, seconds < 1e9 else {
                throw .malformedResponse(endpoint: endpoint, reason: "expires_in is not a number of seconds")
            }
            expiresIn = Int(seconds)
        }
        return TokenResponse(
            accessToken: Secret(access), tokenType: expected, expiresIn: expiresIn,
            refreshToken: object["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : Secret($0) },
            idToken: object["id_token"]?.stringValue.flatMap { $0.isEmpty ? nil : Secret($0) },
            scope: object["scope"]?.stringValue, userID: userID(object["user"]))
    }

    /// The answer's `user.id` when it is a plain identifier (printable ASCII, at most 255 bytes, as
    /// WorkOS's `user_01…` ids are); anything else is ignored — it is only ever displayed.
    static func userID(_ user: JSONValue?) -> String? {
        guard case .object(let fields)? = user, let id = fields["id"]?.stringValue, (1...255).contains(id.utf8.count),
            id.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) })
        else { return nil }
        return id
    }
}

extension TokenResponse {
    /// The first half of the expiry rule, its only statement: when the access token of this answer,
    /// received at `now`, expires — `expires_in` when the provider gave it (RFC 6749 §5.1; 0 means
    /// expired at once), else the `exp` claim of a JWT access token (RFC 9068) — read only as the
    /// provider's own statement of lifetime, never trusted for anything else, and ignored when it is
    /// not in the future (a skewed clock must not cause a refresh loop); nil when neither says. The
    /// second half, `RefreshPolicy.effectiveExpiry(of:)`, then assumes `RefreshPolicy.assumedLifetime`.
    public func statedExpiry(receivedAt now: Date) -> Double? {
        if let expiresIn { return now.timeIntervalSince1970 + Double(expiresIn) }
        guard let exp = AccessTokenClaims.unverified(accessToken)?["exp"]?.doubleValue, exp.isFinite,
            exp > now.timeIntervalSince1970
        else { return nil }
        return exp
    }
}

extension TokenSet {
    /// The tokens of a token endpoint answer received at `now`, as the provider gave them (a
    /// refresh answer then goes through `carryingOver(from:)`). The scope is the granted one, else
    /// `requestedScope`.
    public init(_ response: TokenResponse, requestedScope: String?, receivedAt now: Date) {
        self.init(
            accessToken: response.accessToken, refreshToken: response.refreshToken, idToken: response.idToken,
            tokenType: response.tokenType, scope: response.scope ?? requestedScope,
            expiresAt: response.statedExpiry(receivedAt: now), obtainedAt: now.timeIntervalSince1970)
    }

    /// The carry-over rule, its only statement: the tokens of a refresh answer (`self`) replacing
    /// `previous`. A new refresh token replaces the old one (rotation), an absent one keeps the old
    /// (RFC 6749 §6); the same for the ID token (OpenID Connect Core §12.2), whose claims follow it;
    /// an absent scope means the scope is unchanged (RFC 6749 §5.1). The access token, its type and
    /// its lifetime are always the answer's.
    /// A set that already carries everything over is returned as it is, sharing its storage
    /// (`TokenSet` is copy-on-write: the machine and the last-saved copy then stay one set).
    public func carryingOver(from previous: TokenSet) -> TokenSet {
        var merged = self
        if refreshToken == nil, let kept = previous.refreshToken { merged.refreshToken = kept }
        if idToken == nil, let kept = previous.idToken { merged.idToken = kept }
        if scope == nil, let kept = previous.scope { merged.scope = kept }
        // The refresh was proved with the previous key, so the new tokens are bound to it.
        if dpopKey !== previous.dpopKey { merged.dpopKey = previous.dpopKey }
        return merged
    }
}
