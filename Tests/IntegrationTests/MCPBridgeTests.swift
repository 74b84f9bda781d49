import Foundation
import TestSupport
import Testing

/// `authctl mcp` end to end against the mock's MCP server (Streamable HTTP, protected-resource
/// mode): the real daemon relays, attaches the token, refreshes once on a 401, records a step-up.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct MCPBridgeTests {
    @Test func aHostSessionRelaysJSONAndStreamedAnswersInOrderAndEndsTheSession() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}}"#)
        try await harness.signInMCP("tools", provider: provider)
        let run = try await harness.mcp(
            ["tools"],
            lines: [
                MCPHostLines.initialize(), MCPHostLines.initialized, MCPHostLines.list(id: 2),
                MCPHostLines.call(id: 3, "echo", text: "hello"), #"{"jsonrpc":"2.0","id":4,"method":"ping"}"#,
            ])
        #expect(run.status == 0, "\(run.stderr)\n\(harness.daemonLog)")
        let messages = MCPHostLines.messages(run.stdout)
        // initialize, tools/list, the SSE stream's log notification and result, ping: one line each, in order.
        #expect(messages.count == 5 && run.stdout.split(separator: "\n").count == 5, "\(run.stdout)")
        #expect(messages.map { $0["id"] as? Int } == [1, 2, nil, 3, 4])
        #expect((messages.first?["result"] as? [String: Any])?["protocolVersion"] as? String == "2025-06-18")
        #expect(messages[safe: 2]?["method"] as? String == "notifications/message")
        let content = ((messages[safe: 3]?["result"] as? [String: Any])?["content"] as? [[String: Any]])?.first
        #expect(content?["text"] as? String == "hello", "\(run.stdout)")
        let stats = try await provider.mcpStats
        #expect(
            stats.initializes == 1 && stats.calls == 1 && stats.notifications == 1 && stats.deletes == 1 && stats.sessions == 0)
        // MCP-Protocol-Version on every message after initialize, as negotiated.
        #expect(stats.versions == Array(repeating: "2025-06-18", count: 4), "\(stats.versions)")
        // The token stayed in the daemon: not in the bridge's output, and audited without it.
        let token = try await harness.token("tools")
        #expect(!run.stdout.contains(token) && !run.stderr.contains(token) && !harness.daemonLog.contains(token))
        #expect(harness.daemonLog.contains("audit: mcp account=tools method=POST"))
        #expect(harness.daemonLog.contains("audit: mcp account=tools method=DELETE"))
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func aStepUpIsRecordedOnceNamedToTheHostAndAskedForByTheNextLogin() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}}"#)
        try await harness.signInMCP("tools", provider: provider)
        let lines = [MCPHostLines.initialize(), MCPHostLines.initialized, MCPHostLines.call(id: 2, "admin")]
        let refused = try await harness.mcp(["tools"], lines: lines)
        let error = MCPHostLines.messages(refused.stdout).last?["error"] as? [String: Any]
        #expect(
            error?["code"] as? Int == -32001 && (error?["message"] as? String)?.contains("authctl login tools") == true,
            "\(refused.stdout)")
        #expect(
            refused.stderr.contains("authctl login tools") && refused.stderr.split(separator: "\n").count == 1,
            "\(refused.stderr)")
        // Asked once: the relay never sends the refused request again.
        #expect(try await provider.mcpStats.insufficient_scope == 1)
        let status = try await harness.authctl(["status", "--json"])
        #expect(status.stdout.contains(#""step_up_scope""#) && status.stdout.contains("mcp:admin"), "\(status)")
        #expect(harness.daemonLog.contains("step-up required"))
        // The next login asks for the extra scope; after it the tool works and the step-up is gone.
        #expect(try await harness.login("tools", provider: provider).status == 0)
        let allowed = try await harness.mcp(["tools"], lines: lines)
        let content = ((MCPHostLines.messages(allowed.stdout).last?["result"] as? [String: Any])?["content"] as? [[String: Any]])?
            .first
        #expect(content?["text"] as? String == "admin ok", "\(allowed)")
        #expect(!(try await harness.authctl(["status", "--json"])).stdout.contains("step_up_scope"))
        #expect(await harness.stopDaemon() == 0)
    }

    /// The scopes of a step-up are chosen by a resource server: a provider that lists its scopes
    /// bounds them, and the next login names them before the browser opens (hostile review).
    @Test func aStepUpAsksOnlyForScopesTheProviderOffersAndTheLoginNamesThem() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}}"#)
        try await harness.signInMCP("tools", provider: provider)
        let name = harness.root + "/step-up"
        let report = try SpawnedProcess(
            [
                "/usr/bin/curl", "-sS", "--unix-socket", harness.socket, "-H", "Content-Type: application/json",
                "--data", #"{"scope": "mcp:admin admin:org"}"#, "http://localhost/v1/accounts/tools/step-up",
            ],
            environment: harness.environment, stdoutPath: name + ".out", stderrPath: name + ".err")
        #expect(await report.waitForExit(timeout: 30) == 0)
        #expect(report.stdout.contains("mcp:admin") && !report.stdout.contains("admin:org"), "\(report.stdout)")
        let status = try await harness.authctl(["status", "--json"])
        #expect(status.stdout.contains("mcp:admin") && !status.stdout.contains("admin:org"), "\(status)")
        #expect(harness.daemonLog.contains("step-up: not asking for admin:org"), "\(harness.daemonLog)")
        let login = try await harness.login("tools", provider: provider)
        #expect(login.status == 0 && login.stderr.contains("This login also asks for mcp:admin: a resource server"), "\(login)")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func twoHostsOnOneAccountShareOneRefreshAfterTheServerRefusedTheToken() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}}"#)
        try await harness.signInMCP("tools", provider: provider)
        let before = try await provider.stats.refreshes
        try await provider.rejectMCPTokens()
        let lines = [MCPHostLines.initialize(), MCPHostLines.initialized, MCPHostLines.call(id: 2, "whoami")]
        async let first = harness.mcp(["tools"], lines: lines)
        async let second = harness.mcp(["tools"], lines: lines)
        for run in try await [first, second] {
            let last = MCPHostLines.messages(run.stdout).last
            #expect(last?["id"] as? Int == 2 && last?["result"] != nil, "\(run.stdout)\n\(run.stderr)\n\(harness.daemonLog)")
        }
        #expect(try await provider.stats.refreshes == before + 1)
        // At least one met the 401 (the other may have started after the refresh: MCPSDKTests has
        // two hosts that both hold the refused token); both calls were then served.
        let challenged = try await provider.protectedResourceStats
        #expect(challenged.challenges >= 1, "\(challenged)\n\(harness.daemonLog)")
        #expect(try await provider.mcpStats.calls == 2)
        // The refresh carried the resource (RFC 8707), as every grant of the account does.
        #expect(try await provider.protectedResourceStats.resourceParameters.last == "refresh_token=\(provider.origin)/mcp")
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func sigtermEndsTheSessionLikeTheEndOfInput() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}}"#)
        try await harness.signInMCP("tools", provider: provider)
        let bridge = try SpawnedProcess(
            [try BrokerHarness.binary("authctl"), "--socket", harness.socket, "mcp", "tools"], environment: harness.environment,
            stdoutPath: harness.root + "/bridge.out", stderrPath: harness.root + "/bridge.err", keepStdinOpen: true)
        try bridge.process.writeToStdin(MCPHostLines.initialize() + "\n")
        #expect(
            await SpawnedProcess.eventually(timeout: 30) { bridge.stdout.contains(#""protocolVersion""#) }, "\(bridge.stderr)")
        bridge.signal(SIGTERM)  // stdin still open: the read is interrupted
        #expect(await bridge.waitForExit(timeout: 30) == 0, "\(bridge.stderr)")
        #expect(try await provider.mcpStats.deletes == 1)
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func refusalsAreOneLineAndAJSONRPCErrorForTheWaitingRequest() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}}"#)
        // No account: said at once, before any message.
        let unknown = try await harness.mcp(["nosuch"], lines: [MCPHostLines.initialize()])
        #expect(unknown.status == 1 && unknown.stderr.contains("No account named 'nosuch'"), "\(unknown)")
        // An account without a resource URL has no MCP server.
        try await harness.addAccount("plain", provider: provider)
        let plain = try await harness.mcp(["plain"], lines: [MCPHostLines.initialize(), "not json"])
        let answers = MCPHostLines.messages(plain.stdout)
        #expect(answers.count == 2 && answers.allSatisfy { $0["error"] != nil }, "\(plain.stdout)")
        #expect(plain.stderr.contains("has no resource URL"), "\(plain.stderr)")
        // Logged out: the request's error names the login.
        let add = try await harness.authctl([
            "account", "add", "later", "--issuer", provider.issuer, "--client-id", "mock-client", "--resource-url",
            provider.origin + "/mcp",
        ])
        #expect(add.status == 0)
        let out = try await harness.mcp(["later"], lines: [MCPHostLines.initialize()])
        #expect(
            (MCPHostLines.messages(out.stdout).first?["error"] as? [String: Any]).map { "\($0)".contains("authctl login later") }
                == true, "\(out)")
        #expect(await harness.stopDaemon() == 0)
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

/// `authctl mcp URL`: the account of that resource, added (RFC 9728 discovery and dynamic
/// registration, issue 28 §1) and logged in through the browser when there is none.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct MCPServerURLTests {
    @Test func aServerURLWithNoAccountAddsOneNamedAfterTheHostThenFindsIt() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(
            provider: #"{"protectedResource": {"challengeScope": "mcp:tools"}}"#)
        var environment = harness.environment
        // The login's browser: the test follows the page authctl hands it, as a browser would.
        environment["AUTHBROKER_BROWSER"] = try LoginPageReader.installFollower(in: harness.root) + " %s"
        let url = provider.origin + "/mcp"
        let lines = [MCPHostLines.initialize(), MCPHostLines.initialized, MCPHostLines.call(id: 2, "echo", text: "by url")]
        let command = [try BrokerHarness.binary("authctl"), "--socket", harness.socket, "mcp", url]
        let first = try await Subprocess.run(command, stdin: lines.map { $0 + "\n" }.joined(), environment: environment)
        let name = "127.0.0.1-\(provider.port)"
        #expect(
            first.stderr.contains("adding account '\(name)'") && first.stderr.contains("needs a login"),
            "\(first.stderr)\n\(harness.daemonLog)")
        let content = ((MCPHostLines.messages(first.stdout).last?["result"] as? [String: Any])?["content"] as? [[String: Any]])?
            .first
        #expect(content?["text"] as? String == "by url", "\(first.stdout)")
        // Only JSON-RPC on stdout: what the add and the login printed went to stderr.
        #expect(MCPHostLines.messages(first.stdout).count == first.stdout.split(separator: "\n").count)
        let second = try await Subprocess.run(command, stdin: lines.map { $0 + "\n" }.joined(), environment: environment)
        #expect(!second.stderr.contains("adding") && second.status == 0, "\(second.stderr)")
        #expect(await harness.stopDaemon() == 0)
    }
}
