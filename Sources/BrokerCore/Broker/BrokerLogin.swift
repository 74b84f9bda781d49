import BrokerProtocol
import FoundationEssentials

/// A login as the broker tracks it: the flow (`LoginSession`, `DeviceLoginSession`, or a test's) and
/// what the user is shown.
public struct BrokerLogin: Sendable {
    public var flow: any LoginFlow
    /// What the user opens: the authorization URL, or the device grant's verification URI.
    public var authorizationURL: String
    /// Device grant only.
    public var userCode: String?
    public var verificationURI: String?

    public init(flow: any LoginFlow, authorizationURL: String, userCode: String? = nil, verificationURI: String? = nil) {
        self.flow = flow
        self.authorizationURL = authorizationURL
        self.userCode = userCode
        self.verificationURI = verificationURI
    }
}

/// What a browser login needs to know about the account, handed to a `LoginFlowFactory`.
public struct LoginContext: Sendable {
    public var account: String
    public var client: OIDCClient
    public var metadata: ProviderMetadata
    public var configuration: ClientConfiguration
    public var redirect: LoopbackRedirect
    /// Set for a private-use scheme redirect: no listener, the URL comes back by the callback route.
    public var privateUseRedirect: PrivateUseRedirectURI?
    public var timeout: Duration
}

/// Starts browser (loopback or private-use scheme redirect) logins. The default is `LoginSession`; tests pass fakes.
public typealias LoginFlowFactory = @Sendable (LoginContext) async throws(OIDCError) -> BrokerLogin

extension TokenBroker.Options {
    /// The real thing: a `LoginSession` with its loopback redirect listener.
    public static let loopbackLogins: LoginFlowFactory = { context async throws(OIDCError) in
        let session = try await LoginSession.start(
            client: context.client, metadata: context.metadata, configuration: context.configuration,
            redirect: context.redirect, privateUse: context.privateUseRedirect, timeout: context.timeout)
        return BrokerLogin(flow: session, authorizationURL: session.authorizationURL)
    }
}

extension BrokerLogin {
    /// A device authorization grant login (RFC 8628).
    static func device(
        client: OIDCClient, metadata: ProviderMetadata, configuration: ClientConfiguration
    ) async throws(OIDCError) -> BrokerLogin {
        let session = try await DeviceLoginSession.start(client: client, metadata: metadata, configuration: configuration)
        let authorization = session.authorization
        return BrokerLogin(
            flow: session, authorizationURL: authorization.verificationURIComplete ?? authorization.verificationURI,
            userCode: authorization.userCode, verificationURI: authorization.verificationURI)
    }
}
