import BrokerHTTP
import BrokerProtocol
import Testing

@testable import BrokerCore

/// The MCP relay and step-up routes at the router: what is refused before the broker relays
/// anything, restricted sockets, the relayed answer's framing, and the audit line.
@Suite struct APIRouterMCPTests {
    static let path = "/v1/accounts/work/mcp"

    @Test func aMessageIsRelayedAndTheServersStatusTravelsInAHeader() async {
        let fixture = RouterFixture()
        let message = #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#
        let response = await fixture.send("POST", Self.path, body: message)
        #expect(response.status == 200 && response.headers[MCPRelay.upstreamStatus] == "200")
        #expect(response.body == Array(message.utf8) && response.headers["Cache-Control"] == "no-store")
        #expect(fixture.service.recorded == ["mcpRelay(work,POST,nil)"])
        // Audited with the method, never the message.
        #expect(fixture.logs.captured.contains { $0.contains("audit: mcp account=work method=POST") && !$0.contains("ping") })
    }

    @Test func aGETAsksForOneWindowOfTheServersStreamWithItsLastEventID() async {
        let fixture = RouterFixture()
        let response = await fixture.send("GET", Self.path, accept: "text/event-stream")
        #expect(response.status == 200 && response.headers[MCPRelay.upstreamStatus] == "200")
        #expect(fixture.service.recorded == ["mcpRelay(work,GET,nil)"])
        #expect(fixture.logs.captured.contains { $0.contains("audit: mcp account=work method=GET") })
        // Last-Event-ID is passed on as the session headers are: visible ASCII, bounded, else refused.
        var bad = RouterFixture.request("GET", Self.path)
        bad.headers.add(name: MCPRelay.lastEventID, value: String(repeating: "x", count: MCPRelay.maximumHeaderValue + 1))
        let refused = await fixture.router.handle(bad, connection: RouterFixture.connection())
        #expect(refused.status == 400 && refused.wireError?.message.contains("Last-Event-ID") == true)
        #expect(fixture.service.recorded.count == 1)
    }

    @Test func theGETRequestCarriesTheStreamHeadersAndAWindow() {
        let message = MCPRelayMessage(method: .get, sessionID: "s1", protocolVersion: "2025-06-18", lastEventID: "ev-7")
        let request = message.request(to: "https://mcp.example.com/mcp", authorization: "Bearer t", proof: nil, pins: .none)
        #expect(request.method == "GET" && request.body.isEmpty && request.streamWindow != nil)
        #expect(request.headers["Accept"] == "text/event-stream" && request.headers[MCPRelay.lastEventID] == "ev-7")
        #expect(request.headers[MCPRelay.sessionID] == "s1" && request.headers["Content-Type"] == nil)
        let post = MCPRelayMessage(method: .post, body: Array("{}".utf8))
        #expect(
            post.request(to: "https://mcp.example.com/mcp", authorization: "Bearer t", proof: nil, pins: .none).streamWindow
                == nil)
    }

    @Test func whatIsNotOneJSONMessageIsRefusedBeforeAnythingIsSent() async {
        let fixture = RouterFixture()
        for body in ["not json", "\"a string\"", String(repeating: " ", count: 70 * 1024) + "{}"] {
            let response = await fixture.send("POST", Self.path, body: body)
            #expect(response.status == 400 || response.status == 413, "\(body.prefix(20))")
        }
        let deleteWithoutSession = await fixture.send("DELETE", Self.path)
        #expect(deleteWithoutSession.status == 400 && deleteWithoutSession.wireError?.message.contains("Mcp-Session-Id") == true)
        let report = await fixture.send("POST", "/v1/accounts/work/step-up", body: #"{"scope":"bad\"quote"}"#)
        #expect(report.status == 400)
        #expect(fixture.service.recorded.isEmpty)
    }

    @Test func aStepUpReportReachesTheBroker() async {
        let fixture = RouterFixture()
        let response = await fixture.send("POST", "/v1/accounts/work/step-up", body: #"{"scope":"files:read files:write"}"#)
        #expect(response.status == 200 && response.text.contains(#""login_command""#))
        #expect(fixture.service.recorded == ["stepUp(work,files:read files:write)"])
    }

    @Test func restrictedSocketsRefuseTheRelayAndTheReport() async {
        let grant = RestrictedGrant(name: "remote", owner: RouterFixture.daemonUID, accounts: ["work"])
        let fixture = RouterFixture(scope: .restricted(grant))
        let relayed = await fixture.send("POST", Self.path, body: #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        let reported = await fixture.send("POST", "/v1/accounts/work/step-up", body: #"{"scope":"x"}"#)
        let listened = await fixture.send("GET", Self.path, accept: "text/event-stream")
        #expect(relayed.status == 403 && reported.status == 403 && listened.status == 403)
        #expect(fixture.service.recorded.isEmpty)
    }
}
