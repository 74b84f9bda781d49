/// Body of `POST /v1/accounts/{name}/step-up`: a resource server answered a request made with the
/// account's token `403` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`
/// (RFC 6750 §3.1). The daemon records that the account needs a login with the union of its
/// granted scopes and `scope`, tells the user (notify hook, `status`), and never logs in by itself.
public struct StepUpReport: Codable, Sendable, Equatable {
    /// The challenge's `scope` as sent (space-separated scope-tokens, at most 32).
    public var scope: String

    public init(scope: String) { self.scope = scope }

    /// What is wrong with `scope`, or nil.
    public var problem: String? {
        let scopes = scope.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        if scopes.isEmpty { return "The challenge names no scope; report the 403's scope=\"…\" parameter." }
        if scopes.count > 32 { return "At most 32 scopes in one step-up." }
        if let bad = scopes.first(where: { !TokenNarrowing.isScopeToken($0) }) {
            return "'\(bad.prefix(64))' is not a scope (RFC 6749 §3.3: printable ASCII, no space, quote or backslash)."
        }
        return nil
    }
}

/// The answer to `POST /v1/accounts/{name}/step-up` (also what `authctl mcp` and `authctl curl` print).
public struct StepUpResult: Codable, Sendable, Equatable {
    public var account: String
    /// The scopes the next login asks for: the account's granted ones, then the challenged ones.
    public var scope: String
    /// `authctl login NAME`: what the user runs.
    public var loginCommand: String

    public init(account: String, scope: String, loginCommand: String) {
        self.account = account
        self.scope = scope
        self.loginCommand = loginCommand
    }

    enum CodingKeys: String, CodingKey {
        case account, scope
        case loginCommand = "login_command"
    }
}

/// The fields of the daemon's MCP relay (`POST`/`DELETE /v1/accounts/{name}/mcp`, docs/mcp.md).
/// The request body is the JSON-RPC message itself; the answer is the MCP server's, relayed as it
/// came (its body, `Content-Type`, `Mcp-Session-Id`), with the server's status in
/// `upstreamStatus` — the daemon's own status is 200 for any relayed answer, so a server's 404
/// (session expired) is never mistaken for the daemon's (unknown account).
public enum MCPRelay {
    /// The MCP server's HTTP status, on every relayed answer.
    public static let upstreamStatus = "Authbroker-Upstream-Status"
    /// Set (to the account name) when the daemon recorded a step-up from this answer (a 403 with
    /// `insufficient_scope`); the relayed `WWW-Authenticate` carries the challenge.
    public static let stepUp = "Authbroker-Step-Up"
    /// The scopes the step-up login will ask for (`StepUpResult.scope`).
    public static let stepUpScope = "Authbroker-Step-Up-Scope"
    /// MCP's session header (Streamable HTTP transport), passed both ways.
    public static let sessionID = "Mcp-Session-Id"
    /// MCP's protocol version header, passed to the server.
    public static let protocolVersion = "MCP-Protocol-Version"
    /// `Last-Event-ID`, passed to the server on a resumed stream.
    public static let lastEventID = "Last-Event-ID"
    /// The largest JSON-RPC message the relay takes: the socket's request body limit (64 KiB,
    /// `HTTPLimits.server`). Answers are bounded by the daemon's HTTPS client (1 MiB).
    public static let maximumMessageBytes = 64 * 1024
    /// Header values passed through are at most this long and must be visible ASCII.
    public static let maximumHeaderValue = 256

    /// `value` when it is a header value the relay passes on (visible ASCII, bounded), else nil.
    public static func passable(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= maximumHeaderValue,
            value.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E })
        else { return nil }
        return value
    }
}
