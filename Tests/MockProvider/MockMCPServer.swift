import BrokerHTTP
import Foundation
import Synchronization

/// An MCP server on the mock provider's origin (`/mcp`), speaking the Streamable HTTP transport
/// (MCP 2025-06-18 / 2025-11-25) as a resource server of the mock's own tokens: `initialize` (a
/// session id, the negotiated version), `tools/list` (JSON), `tools/call` (an SSE answer: a
/// comment, a log notification, then the result split over two `data` lines with CRLF endings),
/// `ping`; notifications and responses get 202; GET is 405 (no server stream) unless the stream
/// is switched on, then it answers the session's pending server messages as a short SSE stream
/// (ids `s-N`) that ends at once; DELETE ends the session. Tokens are checked against the mock's issued access tokens; the tool `admin` needs the
/// scope `mcp:admin` and answers 403 `insufficient_scope` with `scope=` otherwise.
///
/// Test hooks: `GET /_mock/mcp` (counters), `POST /_mock/mcp/reject-tokens` (every access token
/// issued so far is refused from now on, as after a server-side expiry), `POST
/// /_mock/mcp/get-stream` (GET answers a stream from now on), `POST /_mock/mcp/notify` (a
/// `notifications/tools/list_changed` for every open session, sent on its next GET).
public final class MockMCPServer: Sendable {
    struct Counters {
        var initializes = 0
        var calls = 0
        var deletes = 0
        var unauthorized = 0
        var insufficientScope = 0
        var notifications = 0
        /// `MCP-Protocol-Version` headers seen after initialize ("-" when one was missing).
        var versions: [String] = []
        var sessions: [String: String] = [:]
        /// GET requests on the MCP endpoint (405 or streams), and the `Last-Event-ID`s they carried.
        var streams = 0
        var lastEventIDs: [String] = []
        var streamEnabled = false
        /// Server messages (JSON text) waiting for each session's next GET.
        var pending: [String: [String]] = [:]
        var eventCount = 0
    }

    static let versions = ["2025-11-25", "2025-06-18", "2025-03-26"]
    static let adminScope = "mcp:admin"
    private let counters = Mutex(Counters())

    public init() {}

    /// The answer to a request for the MCP server or its hooks (on the mock's origin), nil for any
    /// other. In protected-resource mode the server is at that mode's path and answers requests
    /// with a valid token only: the mode's own 401 challenge (RFC 9728 hint) answers the rest.
    func answer(_ request: HTTPRequest, provider: MockProvider) -> HTTPResponse? {
        let path = String(request.path)
        let mode = provider.configuration.protectedResource
        if path == "/introspect" || path.hasPrefix("/_mock/mcp") { return handle(request, path: path, provider: provider) }
        guard path == (mode?.path ?? "/mcp") else { return nil }
        // The mode's resource keeps its plain GET (`{"ok": true}`); MCP is POST, DELETE and a GET for an event stream.
        let mcpMethod = ["POST", "DELETE"].contains(request.method) || (request.method == "GET" && Self.wantsStream(request))
        if mode != nil, provider.mcpScopes(request) == nil || !mcpMethod { return nil }
        return handle(request, path: "/mcp", provider: provider)
    }

    private func handle(_ request: HTTPRequest, path: String, provider: MockProvider) -> HTTPResponse {
        switch (path, request.method) {
        case ("/_mock/mcp", "GET"): return stats()
        case ("/_mock/mcp/reject-tokens", "POST"):
            provider.state.withLock { state in for token in state.accessTokens.keys { state.accessTokens[token]?.revoked = true }
            }
            return HTTPResponse(status: 204)
        case ("/_mock/mcp/get-stream", "POST"):
            counters.withLock { $0.streamEnabled = true }
            return HTTPResponse(status: 204)
        case ("/_mock/mcp/notify", "POST"):
            let changed = #"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#
            counters.withLock { counters in
                for session in counters.sessions.keys { counters.pending[session, default: []].append(changed) }
            }
            return HTTPResponse(status: 204)
        case ("/introspect", "POST"): return provider.introspect(request)
        case ("/mcp", "GET")
        where !counters.withLock({
            $0.streams += 1
            return $0.streamEnabled
        }):
            return HTTPResponse(status: 405, headers: HTTPHeaders([("Allow", "POST, DELETE")]))
        case ("/mcp", "POST"), ("/mcp", "DELETE"), ("/mcp", "GET"): break
        default: return .plainText(status: 405, "use POST or DELETE")
        }
        guard let scopes = provider.mcpScopes(request) else {
            counters.withLock { $0.unauthorized += 1 }
            let metadata = provider.issuer + "/.well-known/oauth-protected-resource/mcp"
            return MockResponse.json(
                ["error": "invalid_token"], status: 401,
                headers: [("WWW-Authenticate", "Bearer error=\"invalid_token\", resource_metadata=\"\(metadata)\"")])
        }
        if request.method == "DELETE" { return endSession(request) }
        if request.method == "GET" { return stream(request) }
        return post(request, scopes: scopes, subject: provider.configuration.subject)
    }

    private func post(_ request: HTTPRequest, scopes: [String], subject: String) -> HTTPResponse {
        let accept = request.headers["Accept"] ?? ""
        guard accept.contains("application/json"), accept.contains("text/event-stream") else {
            return .plainText(status: 406, "Accept must list application/json and text/event-stream")
        }
        guard let message = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
            return MockResponse.json(Self.error(id: NSNull(), -32700, "parse error"), status: 400)
        }
        let method = message["method"] as? String
        if method == "initialize" { return initialize(message) }
        guard let session = request.headers["Mcp-Session-Id"] else { return .plainText(status: 400, "Mcp-Session-Id required") }
        let version = request.headers["MCP-Protocol-Version"]
        let known = counters.withLock { counters -> Bool in
            counters.versions.append(version ?? "-")
            return counters.sessions[session] != nil
        }
        guard known else { return .plainText(status: 404, "no such session") }
        if let version, !Self.versions.contains(version) { return .plainText(status: 400, "unsupported MCP-Protocol-Version") }
        guard let method, let id = message["id"] else {
            counters.withLock { $0.notifications += 1 }
            return HTTPResponse(status: 202)
        }
        switch method {
        case "tools/list": return MockResponse.json(["jsonrpc": "2.0", "id": id, "result": ["tools": Self.tools]])
        case "tools/call": return call(message, id: id, scopes: scopes, subject: subject)
        case "ping": return MockResponse.json(["jsonrpc": "2.0", "id": id, "result": [:] as [String: Any]])
        default: return MockResponse.json(Self.error(id: id, -32601, "method not found"))
        }
    }

    private func initialize(_ message: [String: Any]) -> HTTPResponse {
        let asked = (message["params"] as? [String: Any])?["protocolVersion"] as? String ?? ""
        let version = Self.versions.contains(asked) ? asked : Self.versions[0]
        let session = "mcp-" + UUID().uuidString
        counters.withLock { counters in
            counters.initializes += 1
            counters.sessions[session] = version
        }
        let result: [String: Any] = [
            "protocolVersion": version, "capabilities": ["tools": [:] as [String: Any]],
            "serverInfo": ["name": "mock-mcp", "version": "1.0.0"],
        ]
        return MockResponse.json(
            ["jsonrpc": "2.0", "id": message["id"] ?? NSNull(), "result": result], headers: [("Mcp-Session-Id", session)])
    }

    private func call(_ message: [String: Any], id: Any, scopes: [String], subject: String) -> HTTPResponse {
        let params = message["params"] as? [String: Any] ?? [:]
        let name = params["name"] as? String ?? ""
        let arguments = params["arguments"] as? [String: Any] ?? [:]
        if name == "admin", !scopes.contains(Self.adminScope) {
            counters.withLock { $0.insufficientScope += 1 }
            let needed = (scopes + [Self.adminScope]).joined(separator: " ")
            return MockResponse.json(
                ["error": "insufficient_scope"], status: 403,
                headers: [
                    (
                        "WWW-Authenticate",
                        "Bearer error=\"insufficient_scope\", scope=\"\(needed)\", error_description=\"the admin tool needs \(Self.adminScope)\""
                    )
                ])
        }
        counters.withLock { $0.calls += 1 }
        let text: String
        switch name {
        case "echo": text = arguments["text"] as? String ?? ""
        case "whoami": text = subject
        case "admin": text = "admin ok"
        default: return MockResponse.json(Self.error(id: id, -32602, "unknown tool \(name)"))
        }
        let result: [String: Any] = [
            "jsonrpc": "2.0", "id": id, "result": ["content": [["type": "text", "text": text]], "isError": false],
        ]
        let log: [String: Any] = [
            "jsonrpc": "2.0", "method": "notifications/message", "params": ["level": "info", "data": "calling \(name)"],
        ]
        return Self.eventStream([log, result])
    }

    /// An SSE answer: a comment, then each message as an event; the last one's JSON is cut in two
    /// `data` lines (joined with LF, which JSON reads as whitespace), with CRLF line endings.
    static func eventStream(_ messages: [[String: Any]]) -> HTTPResponse {
        var text = ": mock stream\n\n"
        for (index, message) in messages.enumerated() {
            let json = String(
                decoding: (try? JSONSerialization.data(withJSONObject: message, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
            if index == messages.count - 1, let comma = json.firstIndex(of: ",") {
                text +=
                    "id: ev-\(index)\r\nevent: message\r\ndata: \(json[...comma])\r\ndata: \(json[json.index(after: comma)...])\r\n\r\n"
            } else {
                text += "id: ev-\(index)\ndata: \(json)\n\n"
            }
        }
        return HTTPResponse(
            status: 200, headers: HTTPHeaders([("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")]),
            body: Array(text.utf8))
    }

    static func wantsStream(_ request: HTTPRequest) -> Bool { (request.headers["Accept"] ?? "").contains("text/event-stream") }

    /// The GET stream: the session's pending server messages, then the end of the stream (the
    /// spec lets a server close it at any time; the client asks again).
    private func stream(_ request: HTTPRequest) -> HTTPResponse {
        guard Self.wantsStream(request) else { return .plainText(status: 406, "Accept must list text/event-stream") }
        guard let session = request.headers["Mcp-Session-Id"] else { return .plainText(status: 400, "Mcp-Session-Id required") }
        let events = counters.withLock { counters -> [(String, String)]? in
            guard counters.sessions[session] != nil else { return nil }
            if let last = request.headers["Last-Event-ID"] { counters.lastEventIDs.append(last) }
            let messages = counters.pending.removeValue(forKey: session) ?? []
            return messages.map { message in
                counters.eventCount += 1
                return ("s-\(counters.eventCount)", message)
            }
        }
        guard let events else { return .plainText(status: 404, "no such session") }
        var text = ": mock server stream\n\n"
        for (id, json) in events {
            text += "id: \(id)\nevent: message\ndata: \(json)\n\n"
        }
        return HTTPResponse(
            status: 200, headers: HTTPHeaders([("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")]),
            body: Array(text.utf8))
    }

    private func endSession(_ request: HTTPRequest) -> HTTPResponse {
        guard let session = request.headers["Mcp-Session-Id"] else { return .plainText(status: 400, "Mcp-Session-Id required") }
        let known = counters.withLock { counters -> Bool in
            guard counters.sessions.removeValue(forKey: session) != nil else { return false }
            counters.deletes += 1
            return true
        }
        return HTTPResponse(status: known ? 204 : 404)
    }

    private func stats() -> HTTPResponse {
        let counters = counters.withLock { $0 }
        return MockResponse.json([
            "initializes": counters.initializes, "calls": counters.calls, "deletes": counters.deletes,
            "unauthorized": counters.unauthorized, "insufficient_scope": counters.insufficientScope,
            "notifications": counters.notifications, "versions": counters.versions, "sessions": counters.sessions.count,
            "streams": counters.streams, "last_event_ids": counters.lastEventIDs,
        ])
    }

    static var tools: [[String: Any]] {
        [
            [
                "name": "echo", "description": "echoes text",
                "inputSchema": ["type": "object", "properties": ["text": ["type": "string"]]],
            ],
            ["name": "whoami", "description": "the token's subject", "inputSchema": ["type": "object"]],
            ["name": "admin", "description": "needs mcp:admin", "inputSchema": ["type": "object"]],
        ]
    }

    static func error(id: Any, _ code: Int, _ message: String) -> [String: Any] {
        ["jsonrpc": "2.0", "id": id, "error": ["code": code, "message": message]]
    }
}

extension MockProvider {
    /// RFC 7662 introspection of an access token (`token=` form field), for resource servers
    /// such as the MCP SDK's: `active`, `scope`, `sub`, `client_id`, `exp`. No client authentication.
    func introspect(_ request: HTTPRequest) -> HTTPResponse {
        let fields = (try? FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self))) ?? []
        guard let token = fields.first(where: { $0.name == "token" })?.value else { return MockResponse.json(["active": false]) }
        let (configuration, record, scope) = state.withLock { state in
            let record = state.accessTokens[token]
            return (state.configuration, record, record?.family.map { state.families[$0].scope } ?? "")
        }
        guard let record, !record.revoked, record.expiresAt > Date() else { return MockResponse.json(["active": false]) }
        return MockResponse.json([
            "active": true, "scope": scope, "sub": configuration.subject, "client_id": configuration.clientID,
            "exp": Int(record.expiresAt.timeIntervalSince1970), "token_type": "Bearer",
        ])
    }

    /// The scopes of a valid, unexpired, unrevoked Bearer token on `request`, nil otherwise.
    func mcpScopes(_ request: HTTPRequest) -> [String]? {
        guard let header = request.headers["Authorization"], header.lowercased().hasPrefix("bearer ") else { return nil }
        let token = String(header.dropFirst(7))
        return state.withLock { state -> [String]? in
            guard let record = state.accessTokens[token], !record.revoked, record.expiresAt > Date() else { return nil }
            return record.family.map { state.families[$0].scope.split(separator: " ").map(String.init) } ?? []
        }
    }
}
