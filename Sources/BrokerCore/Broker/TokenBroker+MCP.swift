import BrokerHTTP
import BrokerProtocol

// The MCP relay (docs/mcp.md): `authctl mcp` hands the daemon each JSON-RPC message; the daemon
// attaches the account's token (or a DPoP proof) and sends it to the account's own resource URL
// with the HTTPS client it uses for the provider, so the token never leaves the daemon. A 401 is
// answered by one refresh and one retry; a 403 `insufficient_scope` records a step-up.
extension TokenBroker {
    /// Where and how an account's MCP messages go.
    struct MCPTarget: Sendable {
        var url: String
        var dpop: Bool
        var pins: PublicKeyPins
        /// The account's engine (its pins): its transport sends, its RFC 9728 discovery reads scopes.
        var client: OIDCClient
        var transport: any HTTPTransport { client.transport }
    }

    public nonisolated func mcpRelay(account key: AccountKey, message: MCPRelayMessage) async throws(WireError) -> MCPRelayAnswer
    {
        let target = try await mcpTarget(key)
        var (response, token) = try await sendMCP(message, to: target, account: key, nonce: nil)
        if response.status == 401, target.dpop, let nonce = MCPRelay.passable(response.headers["DPoP-Nonce"]),
            BearerChallenge.parse(response.headers.values("WWW-Authenticate")).contains(where: { $0.error == "use_dpop_nonce" })
        {
            // RFC 9449 §9: the resource server wants its nonce in the proof; not a token problem.
            (response, token) = try await sendMCP(message, to: target, account: key, nonce: nonce)
        }
        if response.status == 401 {
            // Once: the server refused this token. Reporting it (rather than forcing a refresh) lets
            // two bridges that both saw the 401 share one refresh: the second report names a token
            // that is no longer current, and its next token is the first one's refresh. Reported
            // at most once a minute per account (`relayRejections`); the retry happens either way.
            if relayRejections.allow(key) { _ = try await tokenRejected(account: key, accessToken: token) }
            (response, _) = try await sendMCP(message, to: target, account: key, nonce: nil)
        }
        var answer = MCPRelayAnswer(response)
        if response.status == 403, let challenge = BearerChallenge.stepUp(in: answer.wwwAuthenticate) {
            let scopes = challenge.scopes.isEmpty ? await metadataScopes(target: target, account: key) : challenge.scopes
            answer.stepUp = try await stepUp(account: key, scopes: scopes)
        }
        return answer
    }

    /// The account's resource URL and how to reach it; refused when it has none.
    func mcpTarget(_ key: AccountKey) throws(WireError) -> MCPTarget {
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        let configuration = runtime.configuration
        guard let url = configuration.resourceURL else {
            throw fail(
                WireError(
                    code: .invalidRequest,
                    message: "Account '\(key.name)' has no resource URL, so it has no MCP server to relay to; "
                        + "add one with: authctl account add NAME --resource-url URL"))
        }
        return MCPTarget(
            url: url, dpop: configuration.dpop == true, pins: configuration.publicKeyPins, client: oidcClient(for: configuration))
    }

    /// One attempt: the current token (or token and proof) attached, the answer and the token used.
    private nonisolated func sendMCP(_ message: MCPRelayMessage, to target: MCPTarget, account key: AccountKey, nonce: String?)
        async throws(WireError) -> (HTTPResponse, String)
    {
        let authorization: String
        let proof: String?
        let token: String
        if target.dpop {
            let grant = try await dpopProof(
                account: key, request: DPoPProofRequest(method: message.method.rawValue, url: target.url, nonce: nonce))
            (token, proof, authorization) = (grant.accessToken, grant.proof, "DPoP " + grant.accessToken)
        } else {
            let grant = try await self.token(account: key, minTTL: nil)
            (token, proof, authorization) = (grant.accessToken, nil, "Bearer " + grant.accessToken)
        }
        // The token may have come after a refresh or login: if the account's resource changed
        // meanwhile, this token is not for the target chosen before (hostile review).
        guard try await mcpTarget(key).url == target.url else {
            throw WireError(
                code: .conflict, message: "The resource URL of '\(key.name)' changed while this message waited; send it again.")
        }
        do {
            let response = try await target.transport.send(
                message.request(to: target.url, authorization: authorization, proof: proof, pins: target.pins))
            return (response, token)
        } catch {
            throw fail(
                WireError(
                    code: .providerUnavailable,
                    message: "The MCP server of '\(key.name)' did not answer: \(error). Check that it is up, then try again."))
        }
    }

    /// A challenge without `scope=`: the scopes the resource's metadata (RFC 9728) lists, found as
    /// `account add --resource-url` finds them (`discoverProtectedResource`: the resource's own
    /// challenge or well-known URLs, the document checked to name this resource); none on failure.
    private nonisolated func metadataScopes(target: MCPTarget, account key: AccountKey) async -> [String] {
        guard stepUps.mayRediscover(key) else { return [] }
        guard let discovery = try? await target.client.discoverProtectedResource(target.url) else { return [] }
        return Array(discovery.scopes.filter(TokenNarrowing.isScopeToken).prefix(32))
    }

    public func stepUp(account key: AccountKey, scopes: [String]) async throws(WireError) -> StepUpResult {
        guard let runtime = accounts[key] else { throw unknownAccount(key) }
        let granted =
            runtime.machine.currentTokens?.scope.map { $0.split(separator: " ").map(String.init) }
            ?? runtime.configuration.scopes
        // A provider that lists its scopes bounds what a resource server can ask the user to grant.
        // RFC 8414 lets a provider leave some out, so a dropped scope is said, with how to ask for it.
        let offered = runtime.metadata?.metadata.scopesSupported.flatMap { $0.isEmpty ? nil : Set($0) }
        var union = granted
        var dropped: [String] = []
        for scope in scopes where !union.contains(scope) {
            if offered.map({ $0.contains(scope) }) == false { dropped.append(scope) } else { union.append(scope) }
        }
        if !dropped.isEmpty {
            logger.with(key).warning(
                "step-up: not asking for \(dropped.joined(separator: " ")): the provider does not list them in "
                    + "scopes_supported; to ask anyway: authctl refresh \(key.name) --scope SCOPE")
        }
        let result = StepUpResult(
            account: key.name, scope: union.joined(separator: " "), loginCommand: "authctl login \(key.name)")
        // The next login adds what the account's own scopes lack; told once per new set, never a loop.
        if stepUps.record(key, scopes: union.filter { !runtime.configuration.scopes.contains($0) }) {
            notifier.stepUpNeeded(account: key, scope: result.scope)
        }
        return result
    }
}
