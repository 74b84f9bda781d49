import BrokerHTTP
import BrokerProtocol

extension APIRouter {
    /// `POST /v1/accounts/{name}/mcp` (a JSON-RPC message), `GET …/mcp` (one window of the
    /// server's optional event stream) and `DELETE …/mcp` (the session's end):
    /// relayed to the account's own resource URL with its token attached by the daemon. The caller
    /// policy applies as to the token route (the relay spends the token for the caller), and each
    /// relayed request is audited (`audit: mcp account=… method=…`), never its body.
    func answerMCP(_ operation: APIOperation, account: AccountKey, request: HTTPRequest, peer: PeerCredentials)
        async throws(WireError) -> HTTPResponse
    {
        let message = try Self.mcpMessage(operation, request)
        let caller = try await admittedCaller(account, peer: peer)
        audit("mcp", account: account, peer: peer, caller: caller, ["method": message.method.rawValue])
        return try await service.mcpRelay(account: account, message: message).response
    }

    /// The message as the relay sends it: a JSON object (or array) of at most 1 MiB for POST, and
    /// the session headers checked (visible ASCII, bounded), before anything is sent anywhere.
    static func mcpMessage(_ operation: APIOperation, _ request: HTTPRequest) throws(WireError) -> MCPRelayMessage {
        let session = request.headers[MCPRelay.sessionID]
        let version = request.headers[MCPRelay.protocolVersion]
        let (sessionID, protocolVersion) = (MCPRelay.passable(session), MCPRelay.passable(version))
        guard session == nil || sessionID != nil, version == nil || protocolVersion != nil else {
            throw WireError(
                code: .invalidRequest,
                message:
                    "Mcp-Session-Id and MCP-Protocol-Version must be visible ASCII of at most \(MCPRelay.maximumHeaderValue) bytes."
            )
        }
        if operation == .mcpListen {
            let lastEvent = request.headers[MCPRelay.lastEventID]
            let lastEventID = MCPRelay.passable(lastEvent)
            guard lastEvent == nil || lastEventID != nil else {
                throw WireError(
                    code: .invalidRequest,
                    message: "Last-Event-ID must be visible ASCII of at most \(MCPRelay.maximumHeaderValue) bytes.")
            }
            return MCPRelayMessage(method: .get, sessionID: sessionID, protocolVersion: protocolVersion, lastEventID: lastEventID)
        }
        guard operation == .mcpMessage else {
            guard sessionID != nil else {
                throw WireError(code: .invalidRequest, message: "Ending an MCP session needs its Mcp-Session-Id header.")
            }
            return MCPRelayMessage(method: .delete, sessionID: sessionID, protocolVersion: protocolVersion)
        }
        guard request.body.count <= MCPRelay.maximumMessageBytes else {
            throw WireError(
                code: .invalidRequest, message: "The MCP message is larger than \(MCPRelay.maximumMessageBytes) bytes.")
        }
        switch try? WireJSON.parse(request.body, maximumBytes: MCPRelay.maximumMessageBytes) {
        case .object?, .array?: break
        default: throw WireError(code: .invalidRequest, message: "The MCP message must be one JSON-RPC object (JSON).")
        }
        return MCPRelayMessage(method: .post, body: request.body, sessionID: sessionID, protocolVersion: protocolVersion)
    }

    /// `POST /v1/accounts/{name}/step-up`: any client reports a resource server's `insufficient_scope`.
    /// Only a caller that may get the account's token may report it (it changes the next login).
    func answerStepUp(account: AccountKey, request: HTTPRequest, peer: PeerCredentials) async throws(WireError) -> HTTPResponse {
        _ = try await admittedCaller(account, peer: peer)
        let body = try RouterBody.required(.stepUp(account: account.name), from: request)
        if let problem = body.problem { throw WireError(code: .invalidRequest, message: problem) }
        let scopes = body.scope.split(separator: " ").map(String.init)
        return try Self.json(.stepUp(account: account.name), await service.stepUp(account: account, scopes: scopes))
    }
}
