import BrokerHTTP
import Foundation
import TestSupport

/// What the MCP tests share: an account of the mock's MCP server, `authctl mcp` runs fed a whole
/// session on stdin, and the mock MCP server's counters (`Tests/MockProvider/MockMCPServer.swift`).
extension BrokerHarness {
    /// `authctl account add NAME --resource-url ORIGIN/mcp` at the mock (protected-resource mode)
    /// with `scopes`, then a login with the test as the browser.
    func signInMCP(_ name: String, provider: MockProviderProcess, scopes: [String] = ["mcp:tools"]) async throws {
        let add = try await authctl(
            [
                "account", "add", name, "--issuer", provider.issuer, "--client-id", "mock-client", "--resource-url",
                provider.origin + "/mcp",
            ]
                + scopes.flatMap { ["--scope", $0] })
        guard add.status == 0 else { throw HarnessError.unexpected("account add: \(add)\n\(daemonLog)") }
        let login = try await login(name, provider: provider)
        guard login.status == 0 else { throw HarnessError.unexpected("login: \(login)\n\(daemonLog)") }
    }

    /// `authctl mcp NAME` with its stdin open: the test writes the host's lines as it goes.
    func mcpSession(_ name: String) throws -> SpawnedProcess {
        let base = root + "/mcp-\(UInt32.random(in: 0...UInt32.max))"
        return try SpawnedProcess(
            [try Self.binary("authctl"), "--socket", socket, "mcp", name], environment: environment, stdoutPath: base + ".out",
            stderrPath: base + ".err", keepStdinOpen: true)
    }

    /// `authctl mcp ARGS…` with `lines` as the host's messages (then EOF), to its end.
    func mcp(_ arguments: [String], lines: [String], timeout: Duration = .seconds(60)) async throws -> Subprocess.Result {
        try await Subprocess.run(
            [try Self.binary("authctl"), "--socket", socket, "mcp"] + arguments, stdin: lines.map { $0 + "\n" }.joined(),
            environment: environment, timeout: timeout)
    }
}

/// JSON-RPC lines a host sends.
enum MCPHostLines {
    static func initialize(id: Int = 1, version: String = "2025-06-18") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"initialize","params":{"protocolVersion":"\#(version)","capabilities":{},"clientInfo":{"name":"test-host","version":"1"}}}"#
    }
    static let initialized = #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
    static func list(id: Int) -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"tools/list"}"# }
    static func call(id: Int, _ tool: String, text: String = "") -> String {
        #"{"jsonrpc":"2.0","id":\#(id),"method":"tools/call","params":{"name":"\#(tool)","arguments":{"text":"\#(text)"}}}"#
    }

    /// The stdout lines as JSON objects (a line that is not one fails the test through the caller's #expect).
    static func messages(_ stdout: String) -> [[String: Any]] {
        stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
}

extension MockProviderProcess {
    struct MCPStats: Decodable {
        var initializes: Int
        var calls: Int
        var deletes: Int
        var unauthorized: Int
        var insufficient_scope: Int
        var notifications: Int
        var versions: [String]
        var sessions: Int
        var streams: Int
        var last_event_ids: [String]
    }

    var mcpStats: MCPStats {
        get async throws {
            let answer = try await client.send(HTTPClientRequest(url: origin + "/_mock/mcp"))
            return try JSONDecoder().decode(MCPStats.self, from: Data(answer.body))
        }
    }

    /// Every access token issued so far is refused by the MCP server from now on.
    func rejectMCPTokens() async throws {
        _ = try await client.send(HTTPClientRequest(method: "POST", url: origin + "/_mock/mcp/reject-tokens"))
    }

    /// The MCP server answers GET with an event stream from now on (405 before).
    func enableMCPStream() async throws {
        _ = try await client.send(HTTPClientRequest(method: "POST", url: origin + "/_mock/mcp/get-stream"))
    }

    /// A `notifications/tools/list_changed` for every open session, sent on its GET stream.
    func notifyMCPSessions() async throws {
        _ = try await client.send(HTTPClientRequest(method: "POST", url: origin + "/_mock/mcp/notify"))
    }
}
