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
        #expect(
            refusal("other")
                == "This socket ('remote') is restricted: it serves only the token of 'work' (GET /v1/ping too); use the main socket for anything else."
        )
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

    @Test func aNarrowingIsServedOnlyWhenTheSocketWasCreatedWithIt() throws {
        let listed = try TokenNarrowing(spec: "scope=openid resource=https://api.example.com/")
        let plain = Self.grant()
        let named = RestrictedGrant(name: "remote", owner: Self.owner, accounts: ["work"], narrowings: [listed])
        #expect(RestrictedRouteFilter.narrowingRefusal(.none, grant: plain) == nil, "the plain token")
        #expect(RestrictedRouteFilter.narrowingRefusal(listed, grant: plain)?.contains("only plain tokens") == true)
        #expect(RestrictedRouteFilter.narrowingRefusal(listed, grant: named) == nil)
        // Exactly as listed: a subset, a superset or another audience is refused (fail closed).
        for other in [
            "scope=openid", "resource=https://api.example.com/", "scope=openid scope=profile resource=https://api.example.com/",
            "scope=openid resource=https://api.example.com/ audience=x",
        ] {
            #expect(RestrictedRouteFilter.narrowingRefusal(try TokenNarrowing(spec: other), grant: named) != nil, "\(other)")
        }
    }

    @Test func theRouterRefusesANarrowedTokenOrProofTheSocketWasNotCreatedWith() async throws {
        let named = RestrictedGrant(
            name: "remote", owner: Self.owner, accounts: ["work"], narrowings: [try TokenNarrowing(spec: "scope=openid")])
        let fixture = RouterFixture(cachedAccounts: ["work"], scope: .restricted(named))
        for target in [
            "/v1/accounts/work/token?scope=profile", "/v1/accounts/work/token?audience=api%3A%2F%2Fx",
            "/v1/accounts/work/token?resource=https%3A%2F%2Fapi.example.com%2F", "/v1/accounts/work/token?scope=openid%20profile",
        ] {
            let response = await fixture.send("GET", target)
            #expect(response.status == 403 && response.wireError?.code == .forbidden, "\(target)")
            #expect(response.wireError?.message.contains("--narrowing") == true, "\(target)")
        }
        let proof = #"{"method":"GET","url":"https://api.example.com/x","audience":"api://x"}"#
        let refusedProof = await fixture.send("POST", "/v1/accounts/work/dpop-proof", body: proof)
        #expect(refusedProof.status == 403, "\(refusedProof.text)")
        #expect(
            fixture.router.handleImmediately(
                RouterFixture.request("POST", "/v1/accounts/work/dpop-proof", body: proof), connection: RouterFixture.connection()
            )?.status == 403)
        #expect(!fixture.service.recorded.contains { $0.hasPrefix("narrowedToken") || $0.hasPrefix("dpopProof") })
        // The listed narrowing and the plain token are served, and the audit line names the narrowing.
        #expect(await fixture.send("GET", "/v1/accounts/work/token?scope=openid").status == 200)
        #expect(await fixture.send("GET", "/v1/accounts/work/token").status == 200)
        #expect(
            fixture.logs.captured.contains {
                $0.contains("audit: token account=work scope=openid pid=") && $0.contains("socket=remote")
            },
            "\(fixture.logs.captured)")
    }
}
