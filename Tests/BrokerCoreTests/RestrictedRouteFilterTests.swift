import BrokerHTTP
import BrokerProtocol
import Testing

@testable import BrokerCore

/// A restricted socket serves ping and its accounts' tokens, and refuses everything else before
/// routing (docs/security.md, "Restricted sockets").
@Suite struct RestrictedRouteFilterTests {
    static let owner = RouterFixture.daemonUID

    static func grant(_ accounts: [String] = ["work"]) -> RestrictedGrant {
        RestrictedGrant(name: "remote", owner: owner, accounts: accounts)
    }

    @Test func everyOperationIsDecidedAndOnlyPingTheTokenAndItsProofsAreServed() {
        let grant = Self.grant()
        for operation in APIOperation.allCases {
            let refusal = RestrictedRouteFilter.refusal(
                operation: operation, route: operation.route("work"), peerUID: Self.owner, grant: grant)
            let served = operation == .ping || operation == .token || operation == .dpopProof
            #expect((refusal == nil) == served, "\(operation)")
        }
    }

    @Test func aTokenIsServedOnlyForAListedAccountOfTheOwner() {
        let grant = Self.grant()
        func refusal(_ name: String, uid: UInt32 = Self.owner) -> String? {
            RestrictedRouteFilter.refusal(operation: .token, route: .token(name), peerUID: uid, grant: grant)
        }
        #expect(refusal("work") == nil)
        #expect(refusal("other") == "This socket ('remote') is restricted: it serves only the token of 'work' (GET /v1/ping too); use the main socket for anything else.")
        #expect(refusal("work", uid: Self.owner + 1) != nil)
        #expect(grant.revoke("work"))
        #expect(refusal("work")?.contains("serves no account any more") == true)
        #expect(!grant.revoke("work"))
    }

    @Test func anUnmatchedPathOrMethodIsRefused() {
        #expect(RestrictedRouteFilter.refusal(operation: nil, route: nil, peerUID: Self.owner, grant: Self.grant()) != nil)
        #expect(RestrictedRouteFilter.refusal(operation: nil, route: .ping, peerUID: Self.owner, grant: Self.grant()) != nil)
    }

    @Test func theRouterRefusesBeforeRoutingAndAuditsTheSocket() async throws {
        let fixture = RouterFixture(cachedAccounts: ["work", "other"], scope: .restricted(Self.grant()))
        let token = await fixture.send("GET", "/v1/accounts/work/token")
        #expect(token.status == 200)
        let fast = fixture.router.handleImmediately(
            RouterFixture.request("GET", "/v1/accounts/work/token"), connection: RouterFixture.connection())
        #expect(fast?.status == 200)
        #expect(await fixture.send("GET", "/v1/ping").status == 200)
        for (method, target) in [
            ("GET", "/v1/accounts/other/token"), ("GET", "/v1/nowhere"), ("POST", "/v1/ping"), ("GET", "/v1/status"),
            ("GET", "/v1/accounts/work/id_token"), ("POST", "/v1/accounts/work/logout"), ("GET", "/metrics"),
            ("GET", "/v1/sockets"), ("DELETE", "/v1/accounts/work"), ("GET", "/v1/accounts/bad%2Fname/token"),
            ("POST", "/v1/accounts/work/token/rejected"),
        ] {
            let response = await fixture.send(method, target)
            #expect(response.status == 403 && response.wireError?.code == .forbidden, "\(method) \(target)")
            #expect(response.wireError?.message.contains("is restricted") == true, "\(method) \(target)")
            let immediate = fixture.router.handleImmediately(
                RouterFixture.request(method, target), connection: RouterFixture.connection())
            #expect(immediate?.status == 403, "\(method) \(target) on the fast path")
        }
        // Only the two served token requests reached the service.
        #expect(fixture.service.recorded.allSatisfy { $0.contains("work") }, "\(fixture.service.recorded)")
        let audits = fixture.logs.captured.filter { $0.contains("audit: token") }
        #expect(audits.count == 2 && audits.allSatisfy { $0.contains(" socket=remote ") }, "\(audits)")
    }

    @Test func theMainSocketAuditsAsMainAndAnswersSocketRoutesOnlyWithAManager() async {
        let fixture = RouterFixture(cachedAccounts: ["work"])
        #expect(await fixture.send("GET", "/v1/accounts/work/token").status == 200)
        #expect(fixture.logs.captured.contains { $0.contains("audit: token") && $0.contains(" socket=main ") })
        let sockets = await fixture.send("GET", "/v1/sockets")
        #expect(sockets.status == 400 && sockets.wireError?.message == "This daemon offers no restricted sockets.")
    }
}
