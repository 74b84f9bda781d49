import Foundation
import TestSupport
import Testing

/// The optional GET stream of MCP's Streamable HTTP transport through `authctl mcp` and the real
/// daemon, against the mock's MCP server: server messages reach the host's stdout as lines of
/// their own, a token the server refused on the GET is refreshed once, and a server without a
/// stream (405) is asked once and never again, silently.
@Suite(.serialized, .timeLimit(.minutes(4)))
struct MCPEventStreamTests {
    @Test func aServerNotificationOnTheGETStreamReachesTheHostAsOneLine() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}}"#)
        try await harness.signInMCP("tools", provider: provider)
        try await provider.enableMCPStream()
        let bridge = try harness.mcpSession("tools")
        try bridge.process.writeToStdin(MCPHostLines.initialize() + "\n" + MCPHostLines.initialized + "\n")
        #expect(
            try await SpawnedProcess.eventually(timeout: 60) { try await provider.mcpStats.streams >= 1 },
            "\(bridge.stderr)\n\(harness.daemonLog)")
        // A refused token on the GET: the daemon refreshes once and asks again, as for POST.
        let refreshes = try await provider.stats.refreshes
        try await provider.rejectMCPTokens()
        try await provider.notifyMCPSessions()
        let arrived = await SpawnedProcess.eventually(timeout: 60) { bridge.stdout.contains("notifications/tools/list_changed") }
        #expect(arrived, "\(bridge.stdout)\n\(bridge.stderr)\n\(harness.daemonLog)")
        #expect(try await provider.stats.refreshes == refreshes + 1)
        // The next window resumes after the event it delivered.
        #expect(try await SpawnedProcess.eventually(timeout: 60) { try await provider.mcpStats.last_event_ids.contains("s-1") })
        try bridge.process.writeToStdin(MCPHostLines.call(id: 2, "echo", text: "after") + "\n")
        #expect(
            await SpawnedProcess.eventually(timeout: 60) {
                MCPHostLines.messages(bridge.stdout).contains { $0["id"] as? Int == 2 }
            })
        bridge.closeStdin()
        #expect(await bridge.waitForExit(timeout: 60) == 0)
        let messages = MCPHostLines.messages(bridge.stdout)
        // initialize's answer, the notification, the log notification and the echo's result: each one whole line.
        #expect(messages.count == 4 && bridge.stdout.split(separator: "\n").count == 4, "\(bridge.stdout)")
        #expect(messages.filter { $0["method"] as? String == "notifications/tools/list_changed" }.count == 1)
        #expect(bridge.stderr.isEmpty, "\(bridge.stderr)")
        #expect(try await provider.mcpStats.deletes == 1)
        #expect(harness.daemonLog.contains("audit: mcp account=tools method=GET"))
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func aServerWithoutAStreamIsAskedOnceAndTheBridgeWorksAsBefore() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}}"#)
        try await harness.signInMCP("tools", provider: provider)
        let bridge = try harness.mcpSession("tools")
        try bridge.process.writeToStdin(MCPHostLines.initialize() + "\n" + MCPHostLines.initialized + "\n")
        #expect(try await SpawnedProcess.eventually(timeout: 60) { try await provider.mcpStats.streams == 1 }, "\(bridge.stderr)")
        try bridge.process.writeToStdin(MCPHostLines.call(id: 2, "echo", text: "plain") + "\n" + MCPHostLines.list(id: 3) + "\n")
        bridge.closeStdin()
        #expect(await bridge.waitForExit(timeout: 60) == 0)
        #expect(MCPHostLines.messages(bridge.stdout).map { $0["id"] as? Int } == [1, nil, 2, 3], "\(bridge.stdout)")
        #expect(bridge.stderr.isEmpty, "\(bridge.stderr)")
        let stats = try await provider.mcpStats
        #expect(stats.streams == 1 && stats.deletes == 1, "\(stats)")
        #expect(await harness.stopDaemon() == 0)
    }
}
