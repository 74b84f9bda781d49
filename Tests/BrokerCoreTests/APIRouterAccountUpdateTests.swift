import BrokerHTTP
import BrokerProtocol
import Foundation
import Testing

@testable import BrokerCore

/// The routes of issue 6 on the router: account update (PUT), rejected tokens, ID tokens.
@Suite struct APIRouterAccountUpdateTests {
    static let configuration =
        #"{"name":"work","issuer":"https://idp.example","client_id":"c","scopes":["openid"],"extra_parameters":{},"git_username":"alice"}"#

    @Test func putReplacesTheConfigurationOfThePathAccount() async throws {
        let fixture = RouterFixture()
        let response = await fixture.send("PUT", "/v1/accounts/work", body: Self.configuration)
        #expect(response.status == 200)
        let result = try response.decoded(AccountUpdateResult.self)
        #expect(result.outcome == .updated && result.account.name == "work")
        #expect(fixture.service.recorded == ["updateAccount(work,alice)"])
    }

    @Test func onlyNameIssuerAndClientIDAreRequired() async throws {
        let fixture = RouterFixture()
        let minimal = #"{"name":"work","issuer":"https://idp.example","client_id":"c"}"#
        #expect(await fixture.send("PUT", "/v1/accounts/work", body: minimal).status == 200)
        #expect(await fixture.send("POST", "/v1/accounts", body: minimal).status == 201)
        #expect(fixture.service.recorded == ["updateAccount(work,nil)", "addAccount(work,https://idp.example)"])
    }

    @Test func putRefusesAnotherNameAMissingBodyAndBadJSON() async throws {
        let fixture = RouterFixture()
        let renamed = await fixture.send("PUT", "/v1/accounts/other", body: Self.configuration)
        #expect(renamed.status == 400)
        #expect(renamed.wireError?.message.contains("differs from 'other'") == true)
        #expect(await fixture.send("PUT", "/v1/accounts/work").status == 400)
        #expect(await fixture.send("PUT", "/v1/accounts/work", body: #"{"name":"work"}"#).status == 400)
        #expect(fixture.service.recorded.isEmpty)
    }

    @Test func putErrorsComeFromTheService() async throws {
        let fixture = RouterFixture()
        fixture.service.failure.withLock { $0 = WireError(code: .unknownAccount, message: "No account named 'work'.") }
        let response = await fixture.send("PUT", "/v1/accounts/work", body: Self.configuration)
        #expect(response.status == 404 && response.wireError?.code == .unknownAccount)
    }

    @Test func tokenRejectedPassesTheTokenAndAnswersWhetherARefreshIsScheduled() async throws {
        let fixture = RouterFixture()
        let current = await fixture.send(
            "POST", "/v1/accounts/work/token/rejected", body: #"{"access_token":"\#(FakeBrokerService.token)"}"#)
        #expect(current.status == 200)
        #expect(current.text == #"{"refresh_scheduled":true}"#)
        let stale = await fixture.send("POST", "/v1/accounts/work/token/rejected", body: #"{"access_token":"old"}"#)
        #expect(try stale.decoded(TokenRejectionResult.self) == TokenRejectionResult(refreshScheduled: false))
        #expect(await fixture.send("POST", "/v1/accounts/work/token/rejected").status == 400)
        #expect(await fixture.send("POST", "/v1/accounts/work/token/rejected", body: "{}").status == 400)
        let get = await fixture.send("GET", "/v1/accounts/work/token/rejected")
        #expect(get.status == 405 && get.headers["Allow"] == "POST")
        #expect(await fixture.send("POST", "/v1/accounts/work/token/other", body: "{}").status == 404)
        #expect(fixture.service.recorded == ["tokenRejected(work,current)", "tokenRejected(work,other)"])
        // The rejected token is a secret too: never logged.
        #expect(!fixture.logs.captured.contains { $0.contains(FakeBrokerService.token) })
    }

    @Test func idTokenIsJSONNotCachedAndAudited() async throws {
        let fixture = RouterFixture()
        let response = await fixture.send(
            "GET", "/v1/accounts/kube/id_token?min_ttl=60", accept: "text/plain", connection: RouterFixture.connection(pid: 41))
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(
            try response.decoded(IDTokenGrant.self)
                == IDTokenGrant(idToken: FakeBrokerService.idToken, expiresAt: "2030-01-01T00:05:00Z"))
        #expect(await fixture.send("GET", "/v1/accounts/kube/id_token").status == 200)
        #expect(await fixture.send("GET", "/v1/accounts/kube/id_token?min_ttl=x").status == 400)
        #expect(await fixture.send("POST", "/v1/accounts/kube/id_token").status == 405)
        #expect(fixture.service.recorded == ["idToken(kube,60)", "idToken(kube,nil)"])
        let audits = fixture.logs.captured.filter { $0.contains("audit:") }
        #expect(
            audits.first
                == "info: audit: id_token account=kube pid=41 uid=1000 exe=/usr/bin/prog-41 comm=\"prog (41)\" start=941 socket=main owner=1000"
        )
        #expect(audits.count == 2)
        #expect(!fixture.logs.captured.contains { $0.contains(FakeBrokerService.idToken) })
    }

    @Test func idTokenErrorsAreNotAudited() async throws {
        let fixture = RouterFixture()
        fixture.service.failure.withLock { $0 = WireError(code: .loginRequired, message: "Log in with: authctl login kube") }
        let response = await fixture.send("GET", "/v1/accounts/kube/id_token")
        #expect(response.status == 401 && response.wireError?.code == .loginRequired)
        #expect(!fixture.logs.captured.contains { $0.contains("audit:") })
    }
}
