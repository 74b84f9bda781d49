import BrokerHTTP
import BrokerStore
import FoundationEssentials

extension OIDCClient {
    /// The device authorization request (RFC 8628 §3.1): scopes (and resources) with the
    /// client's authentication. Show `userCode` and `verificationURI` to the user, then call
    /// `pollDeviceAuthorization`.
    public func startDeviceAuthorization(metadata: ProviderMetadata, client: ClientConfiguration)
        async throws(OIDCError) -> DeviceAuthorization
    {
        let endpoint = try metadata.endpoint(.deviceAuthorization)
        var fields: [(String, String)] = []
        if !client.scopes.isEmpty { fields.append(("scope", client.scopeParameter)) }
        fields += client.resources.map { ("resource", $0) }
        if let audience = client.audience { fields.append(("audience", audience)) }
        let response = try await OIDCHTTP.send(OIDCHTTP.formPost(endpoint, fields: fields, client: client), transport)
        return try DeviceAuthorization.parse(response, now: time.now())
    }

    /// Polls the token endpoint until the user approves, denies, or the code expires, sleeping
    /// with the injected clock as `DevicePollState` directs. Device-grant ID tokens carry no
    /// nonce; they are validated otherwise like login ones.
    public func pollDeviceAuthorization(
        _ authorization: DeviceAuthorization, metadata: ProviderMetadata, client: ClientConfiguration,
        control: DevicePollControl = DevicePollControl()
    ) async throws(OIDCError) -> TokenSet {
        var state = DevicePollState(authorization: authorization, startedAt: time.elapsed())
        var action = state.start(at: time.elapsed())
        while true {
            switch action {
            case .failed(let error):
                throw error
            case .finished(let response):
                _ = try await validateIDToken(response, metadata: metadata, client: client, expectation: .login(nonce: nil))
                var tokens = TokenSet(
                    response, requestedScope: client.scopes.isEmpty ? nil : client.scopeParameter, receivedAt: time.now())
                tokens.dpopKey = client.dpopKey  // the polls were proved with it: the tokens are bound to it
                return tokens
            case .poll(let delay):
                do {
                    try await time.sleep(delay)
                } catch {
                    throw .cancelled
                }
                guard control.beginRequest() else { throw .cancelled }
                let result: Result<TokenResponse, OIDCError>
                do throws(OIDCError) {
                    result = .success(
                        try await tokenRequest(.deviceCode(authorization.deviceCode), metadata: metadata, client: client))
                } catch {
                    result = .failure(error)
                }
                let goOn = control.endRequest()
                action = state.handle(result, at: time.elapsed())
                // Stopped while this request was in flight: keep a final answer, poll no more.
                if !goOn, case .poll = action { throw .cancelled }
            }
        }
    }
}
