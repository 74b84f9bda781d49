import BrokerCore
import BrokerHTTP
import BrokerProtocol
import Testing

/// `--allow-exe`: the router refuses a token or ID token to a caller whose executable is not on the
/// list, before the broker is asked (fast path included); the fixture's pid P runs /usr/bin/prog-P.
@Suite struct APIRouterCallerPolicyTests {
    static let policy = ["work": CallerPolicy(allowedExecutables: ["/usr/bin/prog-77"])]

    @Test func anAllowedCallerIsServedFromTheFastPath() throws {
        let fixture = RouterFixture(cachedAccounts: ["work"], policies: Self.policy)
        let response = fixture.router.handleImmediately(
            RouterFixture.request("GET", "/v1/accounts/work/token"), connection: RouterFixture.connection(pid: 77))
        #expect(response?.status == 200)
        #expect(fixture.logs.captured.contains { $0.contains("audit: token") && $0.contains("exe=/usr/bin/prog-77") })
    }

    @Test func aCallerOffTheListIsRefusedOnTheFastPathWithItsExecutableNamed() throws {
        let fixture = RouterFixture(cachedAccounts: ["work"], policies: Self.policy)
        let response = fixture.router.handleImmediately(
            RouterFixture.request("GET", "/v1/accounts/work/token"), connection: RouterFixture.connection(pid: 78))
        #expect(response?.status == 403)
        let refusal = try #require(response?.wireError)
        #expect(refusal.code == .callerNotAllowed)
        #expect(refusal.message.contains("/usr/bin/prog-78"))
        #expect(refusal.message.contains("--allow-exe /usr/bin/prog-77 --allow-exe /usr/bin/prog-78"))
        #expect(!fixture.service.recorded.contains { $0.hasPrefix("cachedToken") })
        let body = String(decoding: response?.body ?? [], as: UTF8.self)
        #expect(!body.contains(FakeBrokerService.token))
    }

    @Test(arguments: ["/v1/accounts/work/token?min_ttl=60", "/v1/accounts/work/id_token"])
    func theActorPathRefusesBeforeAskingTheBroker(_ target: String) async throws {
        let fixture = RouterFixture(policies: Self.policy)
        let response = await fixture.send("GET", target, connection: RouterFixture.connection(pid: 78))
        #expect(response.status == 403)
        #expect(response.wireError?.code == .callerNotAllowed)
        #expect(fixture.service.recorded.isEmpty)
        let served = await fixture.send("GET", target, connection: RouterFixture.connection(pid: 77))
        #expect(served.status == 200)
    }

    @Test func anAccountWithoutAPolicyServesAnyCallerOfItsOwner() async {
        let fixture = RouterFixture(policies: Self.policy)
        let response = await fixture.send("GET", "/v1/accounts/home/token", connection: RouterFixture.connection(pid: 78))
        #expect(response.status == 200)
    }

    /// Reporting a rejected token can make the broker refresh: only a caller that may get the
    /// token may report it, so a refused program cannot spend refreshes (git's `erase`).
    @Test func theRejectedTokenRouteRefusesACallerOffTheListBeforeTheBrokerIsAsked() async throws {
        let fixture = RouterFixture(policies: Self.policy)
        let body = #"{"access_token":"\#(FakeBrokerService.token)"}"#
        let refused = await fixture.send(
            "POST", "/v1/accounts/work/token/rejected", body: body, connection: RouterFixture.connection(pid: 78))
        #expect(refused.status == 403)
        #expect(refused.wireError?.code == .callerNotAllowed)
        #expect(refused.wireError?.message.contains("/usr/bin/prog-78") == true)
        #expect(fixture.service.recorded.isEmpty)
        let served = await fixture.send(
            "POST", "/v1/accounts/work/token/rejected", body: body, connection: RouterFixture.connection(pid: 77))
        #expect(served.status == 200)
        #expect(fixture.service.recorded == ["tokenRejected(work,current)"])
    }

    /// A DPoP proof's answer carries the access token: the same policy, before anything is signed.
    @Test func theProofRouteRefusesACallerOffTheListBeforeSigning() async throws {
        let fixture = RouterFixture(policies: Self.policy)
        let body = #"{"method":"GET","url":"https://api.example/v1/orders"}"#
        let refused = await fixture.send(
            "POST", "/v1/accounts/work/dpop-proof", body: body, connection: RouterFixture.connection(pid: 78))
        #expect(refused.status == 403)
        #expect(refused.wireError?.code == .callerNotAllowed)
        #expect(fixture.service.recorded.isEmpty)
        #expect(!String(decoding: refused.body, as: UTF8.self).contains(FakeBrokerService.token))
        let served = await fixture.send(
            "POST", "/v1/accounts/work/dpop-proof", body: body, connection: RouterFixture.connection(pid: 77))
        #expect(served.status == 200)
        #expect(fixture.service.recorded.contains { $0.hasPrefix("dpopProof(") })
    }
}
