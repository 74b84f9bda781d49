import BrokerHTTP
import BrokerProtocol

/// One request of `authctl mcp` for the account's MCP server, as the router read it from the socket:
/// a JSON-RPC message to POST, one window of the server's event stream (GET), or the end of the
/// session (DELETE). The target is never the
/// caller's: it is the account's own `resource_url` (no open proxy).
public struct MCPRelayMessage: Sendable, Equatable {
    public enum Method: String, Sendable {
        case post = "POST"
        case get = "GET"
        case delete = "DELETE"
    }

    public var method: Method
    /// The JSON-RPC message (POST), empty for DELETE.
    public var body: [UInt8]
    /// `Mcp-Session-Id` (checked: visible ASCII, bounded).
    public var sessionID: String?
    /// `MCP-Protocol-Version` after initialize.
    public var protocolVersion: String?
    /// `Last-Event-ID` of a GET: the server may resume its stream after that event.
    public var lastEventID: String?

    /// How long the daemon reads the server's GET stream before it hands what came to the bridge,
    /// which asks again (with `Last-Event-ID`). Below the HTTPS client's total timeout (30 s).
    static let streamWindow: Duration = .seconds(20)

    public init(
        method: Method, body: [UInt8] = [], sessionID: String? = nil, protocolVersion: String? = nil, lastEventID: String? = nil
    ) {
        self.lastEventID = lastEventID
        self.method = method
        self.body = body
        self.sessionID = sessionID
        self.protocolVersion = protocolVersion
    }

    /// The request for `url` with `authorization` (and a `DPoP` proof) attached.
    func request(to url: String, authorization: String, proof: String?, pins: PublicKeyPins) -> HTTPClientRequest {
        var headers = HTTPHeaders([("Authorization", authorization)])
        if let proof { headers.add(name: "DPoP", value: proof) }
        if method == .post {
            headers.add(name: "Accept", value: "application/json, text/event-stream")
            headers.add(name: "Content-Type", value: "application/json")
        }
        if let sessionID { headers.add(name: MCPRelay.sessionID, value: sessionID) }
        if let protocolVersion { headers.add(name: MCPRelay.protocolVersion, value: protocolVersion) }
        guard method == .get else {
            return HTTPClientRequest(method: method.rawValue, url: url, headers: headers, body: body, pins: pins)
        }
        headers.add(name: "Accept", value: "text/event-stream")
        if let lastEventID { headers.add(name: MCPRelay.lastEventID, value: lastEventID) }
        return HTTPClientRequest(method: "GET", url: url, headers: headers, pins: pins, streamWindow: Self.streamWindow)
    }
}

/// What the MCP server answered, relayed to `authctl mcp` as it came (`MCPRelay`), and the step-up
/// the daemon recorded from it, if any.
public struct MCPRelayAnswer: Sendable, Equatable {
    public var status: Int
    public var contentType: String?
    public var sessionID: String?
    public var wwwAuthenticate: [String]
    public var body: [UInt8]
    public var stepUp: StepUpResult?

    public init(
        status: Int, contentType: String? = nil, sessionID: String? = nil, wwwAuthenticate: [String] = [], body: [UInt8] = [],
        stepUp: StepUpResult? = nil
    ) {
        self.status = status
        self.contentType = contentType
        self.sessionID = sessionID
        self.wwwAuthenticate = wwwAuthenticate
        self.body = body
        self.stepUp = stepUp
    }

    init(_ response: HTTPResponse) {
        self.init(
            status: response.status, contentType: MCPRelayAnswer.mediaType(response.headers["Content-Type"]),
            sessionID: MCPRelay.passable(response.headers[MCPRelay.sessionID]),
            wwwAuthenticate: response.headers.values("WWW-Authenticate").map {
                String($0.prefix(AuthenticationChallenge.maximumBytes))
            },
            body: response.body)
    }

    /// The media type alone (`text/event-stream; charset=utf-8` → `text/event-stream`): all the bridge reads.
    static func mediaType(_ header: String?) -> String? {
        guard let header else { return nil }
        let type = header.split(separator: ";", maxSplits: 1).first.map { $0.filter { $0 != " " && $0 != "\t" } } ?? ""
        return MCPRelay.passable(type.lowercased())
    }

    /// The socket answer: 200 with the server's status in `Authbroker-Upstream-Status`.
    var response: HTTPResponse {
        var headers = HTTPHeaders([(MCPRelay.upstreamStatus, String(status)), ("Cache-Control", "no-store")])
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        if let sessionID { headers.add(name: MCPRelay.sessionID, value: sessionID) }
        for challenge in wwwAuthenticate { headers.add(name: "WWW-Authenticate", value: challenge) }
        if let stepUp {
            headers.add(name: MCPRelay.stepUp, value: stepUp.account)
            headers.add(name: MCPRelay.stepUpScope, value: stepUp.scope)
        }
        return HTTPResponse(status: 200, headers: headers, body: body)
    }
}
