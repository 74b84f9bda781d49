import BrokerCrypto
import FoundationEssentials

/// A device authorization grant login (RFC 8628): the user types `userCode` at `verificationURI`
/// while a task polls the token endpoint through the engine (with its injected sleep).
final class DeviceLoginFlow: LoginFlow {
    let loginID: String
    let authorizationURL: String
    let expiresAt: Double
    let userCode: String?
    let verificationURI: String?
    private let polling: Task<Result<TokenSet, OIDCError>, Never>

    private init(
        loginID: String, authorization: DeviceAuthorization, expiresAt: Double,
        polling: Task<Result<TokenSet, OIDCError>, Never>
    ) {
        self.loginID = loginID
        authorizationURL = authorization.verificationURIComplete ?? authorization.verificationURI
        self.expiresAt = expiresAt
        userCode = authorization.userCode
        verificationURI = authorization.verificationURI
        self.polling = polling
    }

    /// Asks the provider for a device code and starts polling.
    static func start(
        client: OIDCClient, metadata: ProviderMetadata, configuration: ClientConfiguration, timeout: Double, now: Double
    ) async throws(OIDCError) -> DeviceLoginFlow {
        let authorization = try await client.startDeviceAuthorization(metadata: metadata, client: configuration)
        let lifetime = min(timeout, Double(authorization.expiresIn.components.seconds))
        let polling = Task { () -> Result<TokenSet, OIDCError> in
            do throws(OIDCError) {
                return .success(
                    try await client.pollDeviceAuthorization(authorization, metadata: metadata, client: configuration))
            } catch {
                return .failure(error)
            }
        }
        let loginID = (try? Random.base64URL(byteCount: 16)) ?? UUID().uuidString
        return DeviceLoginFlow(loginID: loginID, authorization: authorization, expiresAt: now + lifetime, polling: polling)
    }

    func result() async -> Result<TokenSet, OIDCError> {
        await polling.value
    }

    func cancel() async {
        polling.cancel()
    }
}
