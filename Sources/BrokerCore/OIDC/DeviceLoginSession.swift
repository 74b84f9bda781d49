import BrokerCrypto
import FoundationEssentials
import Synchronization

/// One device authorization grant login (RFC 8628) for hosts without a browser: show
/// `authorization.userCode` and `verificationURI`, then await `result()`.
///
/// Polling runs in a task through `OIDCClient.pollDeviceAuthorization`, which sleeps with the
/// client's injected `OIDCTime` and follows `DevicePollState` (`authorization_pending`,
/// `slow_down` +5 s, `expired_token`, `access_denied`). `cancel()` stops the polling.
public final class DeviceLoginSession: LoginFlow {
    public let loginID: String
    /// What to show the user: the user code and where to enter it.
    public let authorization: DeviceAuthorization
    public let expiresAt: Date

    private let completion = LoginCompletion()
    private let poller = Mutex<Task<Void, Never>?>(nil)
    private let control = DevicePollControl()

    /// Asks the device authorization endpoint for a code and starts polling.
    public static func start(
        client: OIDCClient, metadata: ProviderMetadata, configuration: ClientConfiguration,
        randomBytes: RandomBytes = .system
    ) async throws(OIDCError) -> DeviceLoginSession {
        let authorization = try await client.startDeviceAuthorization(metadata: metadata, client: configuration)
        let session = DeviceLoginSession(
            loginID: try randomBytes.base64URL(count: 16), authorization: authorization,
            expiresAt: client.time.now().addingTimeInterval(Double(authorization.expiresIn.components.seconds)))
        let (completion, control) = (session.completion, session.control)
        let task = Task {
            let result: Result<LoginResult, OIDCError>
            do throws(OIDCError) {
                let tokens = try await client.pollDeviceAuthorization(
                    authorization, metadata: metadata, client: configuration, control: control)
                result = .success(LoginResult(tokens: tokens))
            } catch {
                result = .failure(error)
            }
            completion.finish(result)
        }
        session.poller.withLock { $0 = task }
        return session
    }

    private init(loginID: String, authorization: DeviceAuthorization, expiresAt: Date) {
        self.loginID = loginID
        self.authorization = authorization
        self.expiresAt = expiresAt
    }

    public var outcome: Result<LoginResult, OIDCError>? { completion.outcome }

    public func result() async -> Result<LoginResult, OIDCError> { await completion.wait() }

    public func cancel() {
        completion.finish(.failure(.cancelled))
        poller.withLock { $0 }?.cancel()
    }

    /// At shutdown: a poll in flight may bring the approved tokens, so it is awaited (and polling
    /// stops after it); otherwise the login is cancelled.
    public func cancelUnlessExchanging() -> Bool {
        guard control.stop() else {
            cancel()
            return true
        }
        return false
    }
}
