import BrokerCore
import BrokerHTTP
import BrokerProtocol
import Testing

/// `POST …/dpop-proof` on the connection thread (`handleImmediately`): a proof for a token the
/// broker may serve from memory is signed there, with the same checks, audit and no-store answer
/// as the actor path; anything else is handed to the actor path (nil).
@Suite struct APIRouterDPoPFastPathTests {
    static let path = APIRouterDPoPTests.path

    static func immediate(_ fixture: RouterFixture, body: String, pid: Int32 = 77) -> HTTPResponse? {
        fixture.router.handleImmediately(
            RouterFixture.request("POST", path, body: body), connection: RouterFixture.connection(pid: pid))
    }

    @Test func aCachedTokensProofIsSignedWithoutTheActor() throws {
        let fixture = RouterFixture(cachedAccounts: ["work"])
        let response = try #require(Self.immediate(fixture, body: APIRouterDPoPTests.body(nonce: "n-2")))
        #expect(response.status == 200)
        let grant = try response.decoded(DPoPProofGrant.self)
        #expect(grant.proof == FakeBrokerService.cachedProof && grant.tokenType == "DPoP")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(fixture.service.recorded == ["cachedDPoPProof(work,GET,https://api.example/v1/items?id=7,n-2)"])
        let audits = fixture.logs.captured.filter { $0.contains("audit:") }
        #expect(
            audits.count == 1
                && audits[0].contains("audit: dpop_proof account=work method=GET origin=https://api.example pid=77 "))
    }

    @Test func withoutACachedTokenTheActorPathSigns() async throws {
        let fixture = RouterFixture()
        #expect(Self.immediate(fixture, body: APIRouterDPoPTests.body()) == nil)
        #expect(!fixture.logs.captured.contains { $0.contains("audit:") })
        let response = await fixture.send("POST", Self.path, body: APIRouterDPoPTests.body())
        #expect(try response.decoded(DPoPProofGrant.self).proof == FakeBrokerService.proof)
    }

    @Test func aBadBodyIsRefusedOnTheFastPathBeforeAnythingIsSigned() throws {
        let fixture = RouterFixture(cachedAccounts: ["work"])
        let response = try #require(Self.immediate(fixture, body: APIRouterDPoPTests.body(url: "ftp://api.example/x")))
        #expect(response.status == 400 && response.wireError?.code == .invalidRequest)
        #expect(fixture.service.recorded.isEmpty)
    }

    @Test func aCallerOffTheListIsRefusedOnTheFastPath() throws {
        let fixture = RouterFixture(cachedAccounts: ["work"], policies: APIRouterCallerPolicyTests.policy)
        let response = try #require(Self.immediate(fixture, body: APIRouterDPoPTests.body(), pid: 78))
        #expect(response.status == 403 && response.wireError?.code == .callerNotAllowed)
        #expect(fixture.service.recorded.isEmpty)
        #expect(!String(decoding: response.body, as: UTF8.self).contains(FakeBrokerService.token))
    }

    @Test func aConfirmAccountWaitsForTheDecisionOnTheActorPath() {
        let policy = ["work": CallerPolicy(allowedExecutables: [], confirm: true)]
        let fixture = RouterFixture(cachedAccounts: ["work"], policies: policy)
        #expect(Self.immediate(fixture, body: APIRouterDPoPTests.body()) == nil)
        #expect(fixture.service.recorded.isEmpty)
    }
}
