import BrokerProtocol

/// One login the broker waits on: a loopback redirect login (`LoginSession`) or a device grant.
/// The broker only needs its identity, what to show the user, its outcome, and a way to stop it.
public protocol LoginFlow: Sendable {
    var loginID: String { get }
    /// What the user opens (the authorization URL, or the device grant's verification URI).
    var authorizationURL: String { get }
    /// Wall-clock Unix seconds after which the login is over.
    var expiresAt: Double { get }
    /// Device grant only: the code to type at `verificationURI`.
    var userCode: String? { get }
    var verificationURI: String? { get }
    /// Waits for the outcome: tokens with validated ID-token claims, or why the login failed.
    func result() async -> Result<TokenSet, OIDCError>
    /// Stops the login (closes its listener, stops polling); `result()` then returns a failure.
    func cancel() async
}

/// What a login needs to know about the account, handed to a `LoginFlowFactory`.
public struct LoginContext: Sendable {
    public var account: String
    public var client: OIDCClient
    public var metadata: ProviderMetadata
    public var configuration: ClientConfiguration
    /// Loopback host and path for the redirect URI; `port` nil means an ephemeral port.
    public var redirectHost: RedirectURI.Host
    public var redirectPort: Int?
    public var redirectPath: String
    public var timeout: Duration
    public var logger: Logger
}

/// Starts loopback redirect logins (the daemon passes one built on `LoginSession`; tests pass fakes).
public typealias LoginFlowFactory = @Sendable (LoginContext) async throws(OIDCError) -> any LoginFlow
