import BrokerProtocol
@preconcurrency import Glibc
import Synchronization
import SystemCalls
import WireFormats

/// `authctl mcp`'s loop: newline-delimited JSON-RPC from the host on stdin, each message relayed
/// through the daemon (`POST /v1/accounts/{name}/mcp`, which attaches the token and talks MCP's
/// Streamable HTTP transport to the account's resource URL), and every server message written
/// to stdout as one line, in order. Messages go one at a time: the answers of one are written
/// before the next is sent, so the order on stdout is the order of the requests.
///
/// The session: `Mcp-Session-Id` from the initialize answer is sent with every later message,
/// `MCP-Protocol-Version` from the negotiated version after initialize; at the end (EOF on stdin,
/// SIGTERM, SIGINT) the session is ended with a DELETE (a 405 means the server keeps it).
/// Errors go to stderr as one line; a host request that failed also gets a JSON-RPC error answer,
/// so the host never waits for an answer that will not come.
struct MCPBridge {
    let account: String
    let client: BrokerClient
    let output: MCPOutput
    var sessionID: String?
    var protocolVersion: String?
    /// The GET stream's reader, started after the first successful initialize.
    var listener: MCPEventListener?
    /// How long one message may take through the daemon (the daemon's own HTTPS timeout is shorter).
    static let messageTimeout: Double = 120

    init(account: String, client: BrokerClient, output: MCPOutput = MCPOutput()) {
        self.account = account
        self.client = client
        self.output = output
    }

    /// Runs until stdin ends or a termination signal; the exit code.
    mutating func run(input: MCPInput) -> Int32 {
        MCPTermination.arm()
        defer {
            listener?.stop()
            endSession()
        }
        while let line = input.nextLine() {
            switch line {
            case .tooLong:
                output.error("a message from the host is longer than \(MCPRelay.maximumMessageBytes) bytes; it was not sent")
                output.message(
                    JSONRPCError.answer(id: .null, code: JSONRPCError.invalidRequest, "message too large for authctl mcp"))
            case .message(let bytes):
                relay(bytes)
            }
        }
        return 0
    }

    /// One host message: sent, and the server's answer written.
    mutating func relay(_ bytes: [UInt8]) {
        let message = JSONRPCMessage(bytes)
        guard message.isObject else {
            output.error("the host sent a line that is not a JSON-RPC object; it was not sent")
            output.message(JSONRPCError.answer(id: .null, code: JSONRPCError.parseError, "not a JSON-RPC message"))
            return
        }
        var headers: [(String, String)] = []
        if let sessionID { headers.append((MCPRelay.sessionID, sessionID)) }
        if let protocolVersion, !message.isInitialize { headers.append((MCPRelay.protocolVersion, protocolVersion)) }
        let answer: MCPAnswer
        do {
            let path = try APIRoute.mcp(account).path()
            let response = try client.exchange(
                method: "POST", path: path, body: bytes, accept: "application/json, text/event-stream",
                timeout: Self.messageTimeout, headers: headers)
            answer = MCPAnswer(response)
        } catch {
            fail(message, Self.daemonFailure(error, account: account))
            return
        }
        if let id = answer.sessionID { sessionID = id }
        handle(answer, for: message)
    }

    private mutating func handle(_ answer: MCPAnswer, for message: JSONRPCMessage) {
        switch answer.status {
        case 200..<300 where answer.status != 202:
            do {
                for line in try answer.messages() {
                    if message.isInitialize, let version = JSONRPCMessage(Array(line.utf8)).negotiatedVersion {
                        protocolVersion = version
                    }
                    output.line(line)
                }
                if message.isInitialize { listen() }
            } catch {
                fail(message, "the MCP server's answer could not be read: \(error)")
            }
        case 202:
            break
        case 401:
            fail(
                message,
                "the MCP server refused the token of '\(account)' even after a refresh; log in again with: authctl login \(account)"
            )
        case 403 where answer.stepUpScope != nil:
            fail(
                message,
                "the MCP server needs more scopes than '\(account)' has (\(answer.stepUpScope!)); log in with: authctl login \(account)",
                code: JSONRPCError.stepUp)
        case 403:
            fail(message, "the MCP server refused the request (403 Forbidden)\(answer.excerpt)")
        case 404 where sessionID != nil:
            sessionID = nil
            fail(message, "the MCP server ended the session (404); restart this MCP server in the host to start a new one")
        default:
            fail(message, "the MCP server answered \(answer.status)\(answer.excerpt)")
        }
    }

    /// Opens the server's optional GET stream for the session (once): its messages are written
    /// as they come, between the answers to the host's requests.
    private mutating func listen() {
        guard listener == nil else { return }
        let listener = MCPEventListener(
            account: account, client: client, output: output, sessionID: sessionID, protocolVersion: protocolVersion)
        if listener.start() {
            self.listener = listener
        } else {
            output.error("no thread for the MCP server's event stream; running without it")
        }
    }

    /// An error line on stderr and, when the host waits for an answer (a request), a JSON-RPC error.
    private func fail(_ message: JSONRPCMessage, _ text: String, code: Int = JSONRPCError.bridgeFailure) {
        output.error(text)
        if let id = message.requestID { output.message(JSONRPCError.answer(id: id, code: code, text)) }
    }

    /// What the daemon's refusal means for the host, with the command that fixes it.
    static func daemonFailure(_ error: any Error, account: String) -> String {
        guard case .api(let wire)? = error as? BrokerClientError else { return "\(error)" }
        switch wire.code {
        case .loginRequired, .loginPending: return "'\(account)' needs a login: run authctl login \(account) (\(wire.message))"
        default: return wire.message
        }
    }

    /// DELETE of the session at exit; a failure is only reported.
    private func endSession() {
        guard let sessionID else { return }
        var headers = [(MCPRelay.sessionID, sessionID)]
        if let protocolVersion { headers.append((MCPRelay.protocolVersion, protocolVersion)) }
        guard let path = try? APIRoute.mcp(account).path() else { return }
        do {
            let response = try client.exchange(method: "DELETE", path: path, body: nil, timeout: 10, headers: headers)
            let status = MCPAnswer(response).status
            if status >= 300, status != 405, status != 404 {
                output.error("ending the MCP session: the server answered \(status)")
            }
        } catch {
            output.error("ending the MCP session: \(error)")
        }
    }
}

/// The daemon's relayed answer (`MCPRelay`): the server's status, media type, session and body.
struct MCPAnswer {
    let status: Int
    let mediaType: String
    let sessionID: String?
    let stepUpScope: String?
    let body: [UInt8]

    init(_ response: HTTPResponse) {
        status = response.headers[MCPRelay.upstreamStatus].flatMap { Int($0) } ?? 502
        mediaType = response.headers["Content-Type"]?.lowercased() ?? ""
        sessionID = MCPRelay.passable(response.headers[MCPRelay.sessionID])
        stepUpScope = response.headers[MCPRelay.stepUpScope]
        body = response.body
    }

    /// The JSON-RPC messages of a 2xx answer, each as one line: the JSON body, or the data of each
    /// SSE event (events without data, comments and other event types carry none).
    func messages() throws -> [String] { try events().lines }

    /// The messages and the `id` of the last complete event (for `Last-Event-ID`).
    func events() throws -> (lines: [String], lastID: String?) {
        if mediaType.hasPrefix("text/event-stream") {
            var parser = ServerSentEvents()
            // An unterminated last event is dropped (the stream ended, or its window was cut, before its empty line).
            let events = try parser.feed(body)
            let lines = events.filter { $0.type == "message" && !$0.data.isEmpty }.map { Self.oneLine(Array($0.data.utf8)) }
            return (lines, events.last?.id)
        }
        guard !body.isEmpty else { return ([], nil) }
        return ([Self.oneLine(body)], nil)
    }

    /// JSON with its line breaks turned into spaces: a raw CR or LF can only be whitespace between
    /// tokens (inside a JSON string it must be escaped), so the message means the same on one line.
    static func oneLine(_ bytes: [UInt8]) -> String {
        var bytes = bytes
        while let last = bytes.last, last == 10 || last == 13 || last == 32 { bytes.removeLast() }
        return String(decoding: bytes.map { $0 == 10 || $0 == 13 ? 32 : $0 }, as: UTF8.self)
    }

    /// ": first line of the body" for error messages (bounded, control characters dropped).
    var excerpt: String {
        let text = String(decoding: body.prefix(200).filter { $0 >= 32 && $0 < 127 }, as: UTF8.self)
        return text.isEmpty ? "" : ": \(text)"
    }
}
