import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import FoundationEssentials

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

    public init(
        accessToken: Secret, tokenType: String = "Bearer", expiresIn: Int? = nil, refreshToken: Secret? = nil,
        idToken: Secret? = nil, scope: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
    }

    /// Parses an answer of the token endpoint (or of device-code polling). A 200 must be a JSON
    /// object with a non-empty `access_token`; `token_type` must be Bearer (case-insensitive,
    /// RFC 6749 §5.1) — or absent, which some providers (WorkOS User Management) do, and which
    /// is read as Bearer. Anything else is a §5.2 error or a bare HTTP status.
    public static func parse(_ response: HTTPResponse, endpoint: String = "token_endpoint", now: Date)
        throws(OIDCError) -> TokenResponse
    {
        guard response.status == 200 else { throw OIDCHTTP.failure(response, endpoint: endpoint, now: now) }
        let object = try OIDCHTTP.jsonObject(response, endpoint: endpoint)
        guard let access = object["access_token"]?.stringValue, !access.isEmpty else {
            throw .malformedResponse(endpoint: endpoint, reason: "no access_token")
        }
        let type = object["token_type"]?.stringValue ?? "Bearer"
        guard type.lowercased() == "bearer" else { throw .unsupportedTokenType(ProviderText.sanitize(type)) }
        var expiresIn: Int?
        if let value = object["expires_in"], value != .null {
            guard let seconds = value.numberValue, seconds.isFinite, seconds >= 0, seconds < 1e9 else {
                throw .malformedResponse(endpoint: endpoint, reason: "expires_in is not a number of seconds")
            }
            expiresIn = Int(seconds)
        }
        return TokenResponse(
            accessToken: Secret(access), tokenType: "Bearer", expiresIn: expiresIn,
            refreshToken: object["refresh_token"]?.stringValue.flatMap { $0.isEmpty ? nil : Secret($0) },
            idToken: object["id_token"]?.stringValue.flatMap { $0.isEmpty ? nil : Secret($0) },
            scope: object["scope"]?.stringValue)
    }
}

/// The tokens an account holds, with what the engine knows about their lifetime.
public struct TokenSet: Sendable, Equatable {
    public var accessToken: Secret
    public var refreshToken: Secret?
    public var idToken: Secret?
    /// The granted scope (the requested one when the provider did not restate it).
    public var scope: String?
    public var receivedAt: Date
    /// From `expires_in`, else the access token's own `exp` when it is a JWT; nil when neither
    /// says (the broker then applies `RefreshPolicy.assumedLifetime`, its only such rule).
    public var expiresAt: Date?
    /// The validated claims of `idToken`, when there is one.
    public var idTokenClaims: IDTokenClaims?

    public init(
        accessToken: Secret, refreshToken: Secret? = nil, idToken: Secret? = nil, scope: String? = nil,
        receivedAt: Date, expiresAt: Date? = nil, idTokenClaims: IDTokenClaims? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
        self.receivedAt = receivedAt
        self.expiresAt = expiresAt
        self.idTokenClaims = idTokenClaims
    }

    /// The tokens of a code exchange (or device grant) answer received at `now`.
    public init(_ response: TokenResponse, requestedScope: String?, receivedAt now: Date, claims: IDTokenClaims?) {
        self.init(
            accessToken: response.accessToken, refreshToken: response.refreshToken, idToken: response.idToken,
            scope: response.scope ?? requestedScope, receivedAt: now,
            expiresAt: Self.expiry(of: response, receivedAt: now), idTokenClaims: claims)
    }

    /// When the access token of `response`, received at `now`, expires: `expires_in` when the
    /// provider gave it (RFC 6749 §5.1), else the `exp` claim of a JWT access token (RFC 9068) —
    /// read only as the provider's own statement of lifetime, never trusted for anything else, and
    /// ignored when it is not in the future (a skewed clock must not cause a refresh loop).
    static func expiry(of response: TokenResponse, receivedAt now: Date) -> Date? {
        if let expiresIn = response.expiresIn { return now.addingTimeInterval(Double(expiresIn)) }
        guard let jws = try? JWSCompact.parse(response.accessToken.revealString()),
            let exp = (try? ProviderJSON.object(from: jws.payload))?["exp"]?.doubleValue, exp.isFinite, exp > now.timeIntervalSince1970
        else { return nil }
        return Date(timeIntervalSince1970: exp)
    }

    /// The tokens after a refresh answer (RFC 6749 §6): a new refresh token replaces the old
    /// one (rotation), an absent one keeps the old; the same for the ID token and its claims;
    /// an absent scope means the scope is unchanged.
    public func applyingRefresh(_ response: TokenResponse, receivedAt now: Date, claims: IDTokenClaims?) -> TokenSet {
        TokenSet(
            accessToken: response.accessToken, refreshToken: response.refreshToken ?? refreshToken,
            idToken: response.idToken ?? idToken, scope: response.scope ?? scope, receivedAt: now,
            expiresAt: Self.expiry(of: response, receivedAt: now),
            idTokenClaims: response.idToken != nil ? claims : idTokenClaims)
    }
}
