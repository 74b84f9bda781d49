import Foundation
import Testing

/// docs/mcp.md's "Try it against the mock" section, run as written (`DocExample`,
/// `GuideExamplesTests.Runner`) against the mock's MCP server: `https://mcp.example.com/mcp` is
/// the mock's `/mcp`, `$ISSUER` its issuer.
@Suite(.serialized) struct MCPDocTests {
    @Test(.timeLimit(.minutes(3)))
    func theMockWalkThroughRunsAsWritten() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: #"{"protectedResource": {}}"#, defaultSocket: true)
        let runner = try GuideExamplesTests.Runner(harness, provider)
        defer { runner.stop() }
        let doc = try GuideExamplesTests.doc("mcp.md").replacingOccurrences(
            of: "https://mcp.example.com/mcp", with: provider.origin + "/mcp")
        let blocks = DocExample.blocks(in: doc, section: "## Try it against the mock")
        #expect(blocks.joined().count >= 8, "\(blocks)")
        try await runner.check(blocks)
        #expect(await harness.stopDaemon() == 0)
    }
}
