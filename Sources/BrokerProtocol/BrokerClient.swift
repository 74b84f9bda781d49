import WireFormats

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// A tiny blocking client for the daemon's socket API: one connection, one request, one answer.
///
/// `authctl` runs one request per process, so there is nothing to pool; the request goes out with a
/// single `send()` and the answer is parsed by the same codec the daemon uses.
public struct BrokerClient: Sendable {
    public let socketPath: String

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Calls an operation that sends no body and decodes its typed answer. `query` may name only
    /// the parameters the operation reads (`APIOperation.query`); `narrowing` only the token's.
    public func call<Response>(
        _ endpoint: APIEndpoint<APINoBody, Response>, query: [APIQueryParameter: Int] = [:],
        narrowing: TokenNarrowing = .none, timeout: Double? = nil
    ) throws(BrokerClientError) -> Response {
        try call(endpoint, bytes: nil, query: query, narrowing: narrowing, timeout: timeout)
    }

    /// Calls an operation with its JSON body and decodes its typed answer. `headers`: extra request
    /// fields (a caller-policy change's `ConfirmationCode.header`).
    public func call<Body, Response>(
        _ endpoint: APIEndpoint<Body, Response>, body: Body, query: [APIQueryParameter: Int] = [:],
        timeout: Double? = nil, headers: [(String, String)] = []
    ) throws(BrokerClientError) -> Response {
        let bytes: [UInt8]
        do { bytes = try WireJSON.encode(body) } catch {
            throw .protocolError("cannot encode the request: \(error)")
        }
        return try call(endpoint, bytes: bytes, query: query, timeout: timeout, headers: headers)
    }

    /// The token operation with `Accept: text/plain`: the token as one line of text (the fast path).
    public func text(
        _ endpoint: APIEndpoint<APINoBody, TokenGrant>, query: [APIQueryParameter: Int] = [:],
        narrowing: TokenNarrowing = .none, timeout: Double = CallerApproval.clientTimeout
    ) throws(BrokerClientError) -> String {
        let response = try exchange(
            method: endpoint.operation.method, path: target(endpoint, query: query, narrowing: narrowing), body: nil,
            accept: "text/plain", timeout: timeout)
        var body = response.body[...]
        while body.last == 10 || body.last == 13 { body = body.dropLast() }
        return String(decoding: body, as: UTF8.self)
    }

    private func call<Body, Response>(
        _ endpoint: APIEndpoint<Body, Response>, bytes: [UInt8]?, query: [APIQueryParameter: Int],
        narrowing: TokenNarrowing = .none, timeout: Double?, headers: [(String, String)] = []
    ) throws(BrokerClientError) -> Response {
        let method = endpoint.operation.method
        // Reads answer fast; writes may wait on the provider (revocation, a first discovery); a
        // token may wait for a refresh or a `--confirm` approval.
        let tokenOperation = endpoint.operation == .token || endpoint.operation == .idToken
        let timeout = timeout ?? (tokenOperation ? CallerApproval.clientTimeout : method == "GET" ? 30 : 60)
        let response = try exchange(
            method: method, path: target(endpoint, query: query, narrowing: narrowing), body: bytes,
            timeout: timeout, headers: headers)
        if let none = APINoContent() as? Response { return none }
        return try decode(response, as: Response.self)
    }

    /// The request target: the checked path and the query the operation reads, in a fixed order.
    private func target<Body, Response>(
        _ endpoint: APIEndpoint<Body, Response>, query: [APIQueryParameter: Int], narrowing: TokenNarrowing = .none
    ) throws(BrokerClientError) -> String {
        var target: String
        do { target = try endpoint.route.path() } catch {
            switch error {
            case .invalidParameter(let why): throw .protocolError(why)
            case .unknown: throw .protocolError("no such API path")
            }
        }
        let accepted = endpoint.operation.query ?? []
        if let extra = query.keys.first(where: { !accepted.contains($0) }) {
            throw .protocolError("\(endpoint.operation.method) \(endpoint.route.template) takes no '\(extra.rawValue)'")
        }
        if !narrowing.isEmpty, endpoint.operation != .token {
            throw .protocolError("\(endpoint.operation.method) \(endpoint.route.template) takes no narrowing")
        }
        let fields =
            APIQueryParameter.allCases.compactMap { name in query[name].map { "\(name.rawValue)=\($0)" } }
            + narrowing.queryFields.map { "\($0.0)=\(FormURLEncoding.encodeComponent($0.1))" }
        if !fields.isEmpty { target += "?" + fields.joined(separator: "&") }
        return target
    }

    /// Decodes JSON with the client's own decoder (for callers that read JSON from elsewhere,
    /// such as `authctl account apply`'s file).
    public static func decodeJSON<T: Decodable>(_ bytes: [UInt8], as type: T.Type) throws -> T {
        try WireJSON.decode(type, from: bytes)
    }

    /// Sends one request and returns the 2xx response; API errors become `.api`.
    public func exchange(
        method: String, path: String, body: [UInt8]?, accept: String = "application/json", timeout: Double,
        headers extra: [(String, String)] = []
    ) throws(BrokerClientError) -> HTTPResponse {
        var headers = HTTPHeaders([("Host", "localhost"), ("Accept", accept)])
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        for (name, value) in extra { headers.add(name: name, value: value) }
        let request = HTTPRequest(method: method, target: path, headers: headers, body: body ?? [])
        let wire: [UInt8]
        do { wire = try request.serialized() } catch { throw .protocolError("cannot encode the request: \(error)") }
        let socket = try UnixConnection(path: socketPath)
        defer { socket.close() }
        try socket.sendAll(wire)
        let response = try socket.readResponse(to: method, deadline: Monotonic.now() + timeout)
        guard (200..<300).contains(response.status) else { throw apiError(response) }
        return response
    }

    private func decode<T: Decodable>(_ response: HTTPResponse, as type: T.Type) throws(BrokerClientError) -> T {
        do { return try WireJSON.decode(type, from: response.body) } catch {
            throw .protocolError("unexpected answer from the daemon (\(response.status)): not the expected JSON")
        }
    }

    private func apiError(_ response: HTTPResponse) -> BrokerClientError {
        if let envelope = try? WireJSON.decode(ErrorEnvelope.self, from: response.body) {
            return .api(envelope.error)
        }
        let text =
            String(decoding: response.body.prefix(200), as: UTF8.self)
            .split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return .protocolError("the daemon answered \(response.status) \(response.reason): \(text)")
    }
}

/// Why a call to the daemon failed; `exitCode` is what authctl exits with.
public enum BrokerClientError: Error, Sendable, Equatable, CustomStringConvertible {
    case daemonNotRunning(socket: String, reason: String)
    case api(WireError)
    case timeout(socket: String)
    case protocolError(String)
    /// The socket path does not fit a `sockaddr_un` (a usage error: it came from `--socket` or AUTHBROKER_SOCKET).
    case socketPathTooLong(socket: String, limit: Int)

    public var description: String {
        switch self {
        case .socketPathTooLong(let socket, let limit):
            "the socket path is longer than \(limit) bytes (\(socket.utf8.count)): \(ShownText.argument(socket)); "
                + "use a shorter --socket or AUTHBROKER_SOCKET"
        case .daemonNotRunning(let socket, let reason):
            "authbrokerd is not running (\(reason) at \(socket)). " + Self.startHint(socket)
        case .api(let error):
            // The wire message points at authorization_url; on a terminal, show the URL itself.
            if let url = error.authorizationURL {
                error.message.replacingFirst("the browser (authorization_url)", with: "the browser at \(url)")
                    ?? "\(error.message) Finish it at: \(url)"
            } else {
                error.message
            }
        case .timeout(let socket):
            "authbrokerd at \(socket) did not answer in time; check: systemctl --user status authbrokerd"
        case .protocolError(let why):
            why
        }
    }

    /// How to get a daemon on `socket`: the user unit listens on the default path only, so another
    /// path (`--socket`, AUTHBROKER_SOCKET) gets the command that starts a daemon on that one.
    public static func startHint(_ socket: String) -> String {
        if socket.contains("/restricted/") {
            return
                "A restricted socket ends with its ttl, `authctl socket remove` or the daemon; its owner lists them with: authctl socket list"
        }
        if socket.hasSuffix("/authbroker/\(SocketPath.fileName)") {
            return "Start it with: systemctl --user start authbrokerd.socket (or run authbrokerd)"
        }
        return
            "Start one there with: authbrokerd --socket \(ShownText.shellWord(socket)) (or leave out --socket and AUTHBROKER_SOCKET to use the default socket)"
    }

    public var exitCode: Int32 {
        switch self {
        case .socketPathTooLong: ExitCode.usage
        case .daemonNotRunning: ExitCode.daemonUnavailable
        case .api(let error): error.code.exitCode
        case .timeout: ExitCode.temporaryFailure
        case .protocolError: ExitCode.failure
        }
    }
}

extension String {
    /// `self` with the first occurrence of `target` replaced (no Foundation in the CLI).
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String? {
        guard !target.isEmpty else { return nil }
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(target) {
                return String(self[..<index]) + replacement + String(self[self.index(index, offsetBy: target.count)...])
            }
            index = self.index(after: index)
        }
        return nil
    }
}
