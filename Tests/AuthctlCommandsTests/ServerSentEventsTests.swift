import Testing

@testable import AuthctlCommands

/// The SSE parser of `authctl mcp` (WHATWG "Server-sent events" §9.2.6), on the shapes MCP servers send.
struct ServerSentEventsTests {
    private func events(_ text: String, split: Int? = nil) throws -> [ServerSentEvents.Event] {
        var parser = ServerSentEvents()
        let bytes = Array(text.utf8)
        guard let split else { return try parser.feed(bytes) }
        var events: [ServerSentEvents.Event] = []
        var index = 0
        while index < bytes.count {
            events += try parser.feed(bytes[index..<min(index + split, bytes.count)])
            index += split
        }
        return events
    }

    @Test func fieldsCommentsAndMultiLineData() throws {
        let text = ": keep-alive\n\nid: 7\nevent: message\ndata: {\"a\":\ndata:1}\n\nretry: 100\nunknown: x\ndata: two\n\n"
        #expect(
            try events(text) == [
                .init(type: "message", data: "{\"a\":\n1}", id: "7"), .init(type: "message", data: "two", id: "7"),
            ])
    }

    @Test(arguments: [1, 2, 3, 7]) func everyLineEndingAndAnySplitGiveTheSameEvents(_ split: Int) throws {
        for ending in ["\n", "\r\n", "\r"] {
            let text = ["event: note", "data:  x", "", "data: y", "", ""].joined(separator: ending)
            #expect(
                try events(text, split: split) == [
                    .init(type: "note", data: " x", id: nil), .init(type: "message", data: "y", id: nil),
                ])
        }
    }

    @Test func anEventWithoutDataOrItsEmptyLineIsNotDispatched() throws {
        #expect(try events("event: ping\n\ndata: cut") == [])
        #expect(try events("id: 1\n\n") == [])
    }

    @Test func anEventLargerThanTheLimitFailsTheStream() {
        var parser = ServerSentEvents(maximumEventBytes: 16)
        #expect(throws: ServerSentEvents.Failure.eventTooLarge(limit: 16)) {
            _ = try parser.feed(
                Array(("data: " + String(repeating: "x", count: 8) + "\ndata: " + String(repeating: "y", count: 8) + "\n").utf8))
        }
    }

    @Test func aServerMessageIsWrittenAsOneLine() {
        #expect(MCPAnswer.oneLine(Array("{\"a\":\r\n 1,\n\"b\":\"x\"}\n\n".utf8)) == "{\"a\":   1, \"b\":\"x\"}")
    }

    @Test func theBridgeAnswersOnlyRequestsAndReadsTheNegotiatedVersion() {
        #expect(JSONRPCMessage(Array(#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#.utf8)).requestID == .string("a"))
        #expect(JSONRPCMessage(Array(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.utf8)).requestID == nil)
        #expect(JSONRPCMessage(Array(#"{"jsonrpc":"2.0","id":1,"result":{}}"#.utf8)).requestID == nil)
        #expect(
            JSONRPCMessage(Array(#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}"#.utf8)).negotiatedVersion
                == "2025-11-25")
        #expect(!JSONRPCMessage(Array("[1,2]".utf8)).isObject)
    }

    @Test func accountsForAServerURLAreNamedAfterItsHost() throws {
        #expect(try MCPAccountFinder.accountName(for: "https://MCP.Example.com/mcp") == "mcp.example.com")
        #expect(try MCPAccountFinder.accountName(for: "http://127.0.0.1:8080/mcp") == "127.0.0.1-8080")
        #expect(MCPAccountFinder.canonical("HTTPS://Api.Example.com/MCP/") == "https://api.example.com/MCP")
    }
}
