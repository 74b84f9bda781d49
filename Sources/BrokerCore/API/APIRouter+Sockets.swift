import BrokerHTTP
import BrokerProtocol

extension APIRouter {
    /// `GET/POST /v1/sockets`, `DELETE /v1/sockets/{name}`: only reached on the main socket (a
    /// restricted one refuses them in `admit`), always for the caller's own sockets.
    func answerSockets(_ operation: APIOperation, name: String, request: HTTPRequest, peer: PeerCredentials)
        async throws(WireError) -> HTTPResponse
    {
        guard let sockets = configuration.sockets else {
            throw WireError(code: .invalidRequest, message: "This daemon offers no restricted sockets.")
        }
        switch operation {
        case .listSockets:
            return try Self.json(.listSockets, await sockets.sockets(owner: peer.uid))
        case .addSocket:
            let body = try RouterBody.required(.addSocket, from: request)
            return try Self.json(.addSocket, await sockets.addSocket(body, owner: peer.uid), status: 201)
        case .removeSocket:
            try await sockets.removeSocket(name: name, owner: peer.uid)
            return HTTPResponse(status: 204)
        default:
            throw WireError(code: .internal, message: "The daemon routed \(operation.rawValue) to socket management.")
        }
    }
}
