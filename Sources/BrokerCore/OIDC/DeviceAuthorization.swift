import BrokerCrypto
import BrokerHTTP
import BrokerProtocol
import FoundationEssentials
import WireFormats

/// A device authorization response (RFC 8628 §3.2): what to show the user and what to poll with.
public struct DeviceAuthorization: Sendable, Equatable {
    public var deviceCode: Secret
    /// The code the user types at `verificationURI`.
    public var userCode: String
    public var verificationURI: String
    /// The URI with the user code embedded, when the provider offers one (for a QR code).
    public var verificationURIComplete: String?
    public var expiresIn: Duration
    /// Minimum wait between polls (default 5 s, RFC 8628 §3.2).
    public var interval: Duration

    public init(
        deviceCode: Secret, userCode: String, verificationURI: String, verificationURIComplete: String? = nil,
        expiresIn: Duration, interval: Duration = .seconds(5)
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }

    /// Parses the answer of the device authorization endpoint. `verification_url` (Google's
    /// historical spelling) is accepted for `verification_uri`; a 200 carrying a string `error` is
    /// the OAuth error it names.
    public static func parse(_ response: HTTPResponse, now: Date) throws(OIDCError) -> DeviceAuthorization {
        let endpoint = ProviderEndpoint.deviceAuthorization.metadataKey
        guard response.status == 200 else { throw OIDCHTTP.failure(response, endpoint: endpoint, now: now) }
        let object = try OIDCHTTP.jsonObject(response, endpoint: endpoint)
        // GitHub answers a refused device request with 200 too (`device_flow_disabled`).
        if let error = OIDCHTTP.oauthError(in: object, status: response.status, retryAfter: nil) { throw error }
        guard let deviceCode = object["device_code"]?.stringValue, !deviceCode.isEmpty,
            let userCode = object["user_code"]?.stringValue,
            let uri = object["verification_uri"]?.stringValue ?? object["verification_url"]?.stringValue,
            let expiresIn = object["expires_in"]?.numberValue, expiresIn > 0, expiresIn < 1e6
        else {
            throw .malformedResponse(endpoint: endpoint, reason: "missing device_code, user_code, verification_uri or expires_in")
        }
        let interval = Self.pollingInterval(object["interval"]) ?? .seconds(5)
        return DeviceAuthorization(
            deviceCode: Secret(deviceCode), userCode: ProviderText.sanitize(userCode),
            verificationURI: ProviderText.sanitize(uri),
            verificationURIComplete: object["verification_uri_complete"]?.stringValue.map(ProviderText.sanitize),
            expiresIn: .seconds(Int64(expiresIn)), interval: interval)
    }

    /// A provider's `interval` member (the device authorization's, or a `slow_down`'s new
    /// minimum as GitHub sends one), clamped to 1…300 s; nil when absent or not a number.
    static func pollingInterval(_ value: JSONValue?) -> Duration? {
        value?.numberValue.map { .seconds(Int64(min(max($0, 1), 300))) }
    }
}

/// The polling side of the device grant (RFC 8628 §3.4–3.5) as a pure state machine: feed it
/// each poll's result and the monotonic time, do what the returned action says.
///
/// `authorization_pending` → poll again after the interval; `slow_down` → interval + 5 s (or the
/// answer's `interval` when longer), for good; a transient failure (network, 5xx) → double the
/// interval (at most 60 s), honouring Retry-After; `expired_token` or the deadline passing → `deviceCodeExpired`; `access_denied`
/// → `deviceAccessDenied`; any other error ends the flow with it.
public struct DevicePollState: Sendable, Equatable {
    public enum Action: Sendable, Equatable {
        case poll(after: Duration)
        case finished(TokenResponse)
        case failed(OIDCError)
    }

    public private(set) var interval: Duration
    /// Monotonic time after which the device code is dead.
    public let deadline: Duration

    public static let slowDownIncrement: Duration = .seconds(5)
    public static let maximumBackoff: Duration = .seconds(60)

    public init(authorization: DeviceAuthorization, startedAt: Duration) {
        interval = authorization.interval
        deadline = startedAt + authorization.expiresIn
    }

    /// The first action: wait one interval before the first poll (RFC 8628 §3.4).
    public func start(at now: Duration) -> Action { wait(interval, now: now) }

    public mutating func handle(_ result: Result<TokenResponse, OIDCError>, at now: Duration) -> Action {
        switch result {
        case .success(let tokens):
            return .finished(tokens)
        case .failure(.oauthError(let response, _, let retryAfter)) where response.error == "authorization_pending":
            return wait(max(interval, retryAfter ?? .zero), now: now)
        case .failure(.oauthError(let response, _, _)) where response.error == "slow_down":
            // RFC 8628 §3.5: +5 s for good; a provider naming a longer interval (GitHub) is obeyed.
            interval = max(interval + Self.slowDownIncrement, response.interval ?? .zero)
            return wait(interval, now: now)
        case .failure(.oauthError(let response, _, _)) where response.error == "expired_token":
            return .failed(.deviceCodeExpired)
        case .failure(.oauthError(let response, _, _)) where response.error == "access_denied":
            return .failed(.deviceAccessDenied)
        case .failure(let error):
            guard case .transient(let retryAfter) = error.disposition else { return .failed(error) }
            interval = max(interval, min(interval * 2, Self.maximumBackoff))
            return wait(max(interval, retryAfter ?? .zero), now: now)
        }
    }

    private func wait(_ delay: Duration, now: Duration) -> Action {
        now + delay < deadline ? .poll(after: delay) : .failed(.deviceCodeExpired)
    }
}
