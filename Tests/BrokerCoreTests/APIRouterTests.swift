import BrokerHTTP
import BrokerProtocol
import Foundation
import Testing

@testable import BrokerCore

@Suite struct APIRouterTests {
    @Test func pingReportsVersionPidAndUptime() async throws {
        let fixture = RouterFixture()
        let response = await fixture.send("GET", "/v1/ping")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json")
        let ping = try response.decoded(PingResult.self)
        #expect(ping == PingResult(version: BrokerVersion.string, pid: 4242, uptimeSeconds: 10))
    }

    @Test func statusAndAccountsAreTheServiceListsWithEveryKey() async throws {
        let fixture = RouterFixture()
        let status = await fixture.send("GET", "/v1/status")
        #expect(status.status == 200)
        #expect(
            status.text
                == #"{"accounts":[{"expires_at":"2030-01-01T00:00:00Z","last_error":null,"last_refresh":null,"name":"work","scope":null,"state":"active","subject":null}]}"#
        )
        let accounts = await fixture.send("GET", "/v1/accounts")
        #expect(try accounts.decoded(AccountList.self) == AccountList(accounts: []))
        #expect(fixture.service.recorded == ["status", "accounts"])
    }

    @Test func accountRoutesCallTheServiceWithThePathName() async throws {
        let fixture = RouterFixture()
        let show = await fixture.send("GET", "/v1/accounts/work")
        #expect(show.status == 200)
        #expect(try show.decoded(AccountStatus.self).name == "work")
        let added = await fixture.send(
            "POST", "/v1/accounts",
            body: #"{"name":"new","issuer":"https://idp.example","client_id":"c","scopes":[],"extra_parameters":{}}"#)
        #expect(added.status == 201)
        let removed = await fixture.send("DELETE", "/v1/accounts/work")
        #expect(removed.status == 204)
        #expect(removed.body.isEmpty)
        #expect(fixture.service.recorded == ["account(work)", "addAccount(new,https://idp.example)", "removeAccount(work)"])
    }

    @Test func loginLogoutRekeyAndLoginStatusRoutes() async throws {
        let fixture = RouterFixture()
        let login = await fixture.send("POST", "/v1/accounts/work/login", body: #"{"timeout_seconds":30}"#)
        #expect(login.status == 200)
        #expect(try login.decoded(LoginStarted.self).loginID == "L1")
        let noBody = await fixture.send("POST", "/v1/accounts/work/login")
        #expect(noBody.status == 200)
        let status = await fixture.send("GET", "/v1/logins/L1?wait=25")
        #expect(try status.decoded(LoginStatus.self).outcome == .succeeded)
        let logout = await fixture.send("POST", "/v1/accounts/work/logout", body: "{}")
        #expect(try logout.decoded(LogoutResult.self) == LogoutResult(revoked: true))
        let rekey = await fixture.send("POST", "/v1/rekey", body: "{}")
        #expect(try rekey.decoded(RekeyResult.self).resealed == 3)
        #expect(
            fixture.service.recorded == [
                "startLogin(work,30)", "startLogin(work,nil)", "loginStatus(L1,25)", "logout(work)", "rekey",
            ])
    }

    @Test func metricsIsPrometheusText() async throws {
        let fixture = RouterFixture()
        let response = await fixture.send("GET", "/metrics")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(response.text == "authbroker_tokens_served_total 5\n")
    }

    @Test func tokenAsJSONAndAsPlainText() async throws {
        let fixture = RouterFixture()
        let json = await fixture.send("GET", "/v1/accounts/work/token?min_ttl=120")
        #expect(json.status == 200)
        #expect(try json.decoded(TokenGrant.self) == FakeBrokerService.grant)
        #expect(json.headers["Cache-Control"] == "no-store")
        let plain = await fixture.send("GET", "/v1/accounts/work/token", accept: "text/plain")
        #expect(plain.status == 200)
        #expect(plain.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(plain.text == FakeBrokerService.token + "\n")
        let preferred = await fixture.send("GET", "/v1/accounts/work/token", accept: "text/plain;q=1, application/json")
        #expect(preferred.text == FakeBrokerService.token + "\n")
        #expect(fixture.service.recorded == ["token(work,120)", "token(work,nil)", "token(work,nil)"])
    }

    @Test func refreshOneAsksForARefreshAndTakesNoOtherTokenParameter() async throws {
        let fixture = RouterFixture()
        let refreshed = await fixture.send("GET", "/v1/accounts/work/token?refresh=1")
        #expect(refreshed.status == 200)
        #expect(try refreshed.decoded(TokenGrant.self) == FakeBrokerService.grant)
        for query in ["refresh=1&min_ttl=60", "refresh=1&scope=openid", "refresh=0", "refresh=2"] {
            #expect(await fixture.send("GET", "/v1/accounts/work/token?" + query).status == 400, "\(query)")
        }
        #expect(fixture.service.recorded == ["refreshedToken(work)"])
    }

    @Test(arguments: WireErrorCode.allCases)
    func serviceErrorsBecomeTheEnvelopeWithTheirStatus(code: WireErrorCode) async throws {
        let fixture = RouterFixture()
        let error = WireError(
            code: code, message: "because \(code.rawValue)",
            authorizationURL: code == .loginPending ? "https://idp.example/authorize" : nil)
        fixture.service.failure.withLock { $0 = error }
        let response = await fixture.send("GET", "/v1/accounts/work/token", accept: "text/plain")
        #expect(response.status == code.httpStatus)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.wireError == error)
        if code == .loginPending {
            #expect(response.text.contains(#""authorization_url":"https://idp.example/authorize""#))
        } else {
            #expect(!response.text.contains("authorization_url"))
        }
    }

    @Test func unknownPathsAre404WithTheEnvelope() async throws {
        let fixture = RouterFixture()
        for path in ["/", "/v1", "/v2/status", "/v1/status/", "/v1//status", "/v1/accounts/work/tokens", "/metrics/x"] {
            let response = await fixture.send("GET", path)
            #expect(response.status == 404, "\(path)")
            #expect(response.wireError?.code == .invalidRequest, "\(path)")
        }
        #expect(fixture.service.recorded.isEmpty)
    }

    @Test func wrongMethodsAre405WithAllow() async throws {
        let fixture = RouterFixture()
        let cases: [(String, String, String)] = [
            ("POST", "/v1/status", "GET"), ("PUT", "/v1/accounts", "GET, POST"),
            ("POST", "/v1/accounts/work", "GET, PUT, DELETE"), ("GET", "/v1/accounts/work/login", "POST, DELETE"),
            ("DELETE", "/v1/accounts/work/token", "GET"), ("GET", "/v1/rekey", "POST"),
        ]
        for (method, path, allow) in cases {
            let response = await fixture.send(method, path)
            #expect(response.status == 405, "\(method) \(path)")
            #expect(response.headers["Allow"] == allow, "\(method) \(path)")
            #expect(response.wireError?.code == .invalidRequest)
        }
        #expect(fixture.service.recorded.isEmpty)
    }

    @Test func badQueriesAre400() async throws {
        let fixture = RouterFixture()
        let bad = [
            "/v1/accounts/work/token?min_ttl=86401", "/v1/accounts/work/token?min_ttl=-1",
            "/v1/accounts/work/token?min_ttl=abc", "/v1/accounts/work/token?min_ttl=", "/v1/accounts/work/token?min_ttl=1e3",
            "/v1/accounts/work/token?min_ttl=1&min_ttl=2", "/v1/accounts/work/token?other=1",
            "/v1/accounts/work/token?min_ttl=%ZZ", "/v1/logins/L1?wait=61", "/v1/logins/L1?wait=x", "/v1/status?x=1",
        ]
        for target in bad {
            let response = await fixture.send("GET", target)
            #expect(response.status == 400, "\(target)")
            #expect(response.wireError?.code == .invalidRequest, "\(target)")
        }
        #expect(fixture.service.recorded.isEmpty)
        let edge = await fixture.send("GET", "/v1/accounts/work/token?min_ttl=86400")
        #expect(edge.status == 200)
    }

    @Test func badPathParametersAre400() async throws {
        let fixture = RouterFixture()
        for path in ["/v1/accounts/-bad", "/v1/accounts/a%20b/token", "/v1/logins/../x", "/v1/logins/a.b"] {
            let response = await fixture.send("GET", path)
            #expect(response.status == 400 || response.status == 404, "\(path)")
            #expect(response.wireError?.code == .invalidRequest, "\(path)")
        }
        #expect(fixture.service.recorded.isEmpty)
    }

    @Test func badJSONBodiesAre400AndDoNotEchoTheBody() async throws {
        let fixture = RouterFixture()
        let secret = "s3cr3t-client-secret"
        let cases = [
            "{", "[]", #"{"name":"x"}"#, #"{"name":"x","issuer":1,"client_id":"c","client_secret":"\#(secret)"}"#,
        ]
        for body in cases {
            let response = await fixture.send("POST", "/v1/accounts", body: body)
            #expect(response.status == 400, "\(body)")
            #expect(response.wireError?.code == .invalidRequest)
            #expect(!response.text.contains(secret))
        }
        let empty = await fixture.send("POST", "/v1/accounts")
        #expect(empty.status == 400)
        let login = await fixture.send("POST", "/v1/accounts/work/login", body: #"{"timeout_seconds":"x"}"#)
        #expect(login.status == 400)
        #expect(fixture.service.recorded.isEmpty)
    }

    @Test func anotherUIDIsForbiddenOnEveryRouteBeforeAnythingElse() async throws {
        let fixture = RouterFixture()
        let stranger = RouterFixture.connection(uid: 1001)
        for (method, path) in [("GET", "/v1/ping"), ("GET", "/v1/accounts/work/token"), ("GET", "/nope"), ("PUT", "/v1/status")] {
            let response = await fixture.send(method, path, connection: stranger)
            #expect(response.status == 403, "\(method) \(path)")
            #expect(response.wireError?.code == .forbidden)
        }
        let tcp = ConnectionInfo(id: 2, peer: .tcp(address: "127.0.0.1", port: 5555))
        #expect(await fixture.send("GET", "/v1/ping", connection: tcp).status == 403)
        let immediate = fixture.router.handleImmediately(
            HTTPRequest(method: "GET", target: "/v1/accounts/work/token"), connection: stranger)
        #expect(immediate?.status == 403)
        #expect(fixture.service.recorded.isEmpty)
        // One line per uid per minute, however many refusals (the fixture's clock stands still).
        #expect(fixture.logs.captured.filter { $0.hasPrefix("warning: refused a request from uid 1001") }.count == 1)
        #expect(fixture.logs.captured.filter { $0.hasPrefix("warning: refused a request from a connection without") }.count == 1)
    }

    @Test func allowedUIDsAreServed() async throws {
        let fixture = RouterFixture(allowedUIDs: [1001])
        #expect(await fixture.send("GET", "/v1/ping", connection: RouterFixture.connection(uid: 1001)).status == 200)
        #expect(await fixture.send("GET", "/v1/ping", connection: RouterFixture.connection(uid: 1002)).status == 403)
    }

    @Test func everyServedTokenIsAuditedWithoutTheToken() async throws {
        let fixture = RouterFixture(cachedAccounts: ["fast"])
        _ = await fixture.send("GET", "/v1/accounts/work/token?min_ttl=5", connection: RouterFixture.connection(pid: 31))
        let fast = fixture.router.handleImmediately(
            HTTPRequest(method: "GET", target: "/v1/accounts/fast/token", headers: HTTPHeaders([("Accept", "text/plain")])),
            connection: RouterFixture.connection(pid: 32))
        #expect(fast?.text == FakeBrokerService.token + "\n")
        let audits = fixture.logs.captured.filter { $0.contains("audit:") }
        #expect(
            audits == [
                "info: audit: token account=work pid=31 uid=1000 exe=/usr/bin/prog-31 comm=\"prog (31)\" start=931 socket=main owner=1000",
                "info: audit: token account=fast pid=32 uid=1000 exe=/usr/bin/prog-32 comm=\"prog (32)\" start=932 socket=main owner=1000",
            ])
        #expect(!fixture.logs.captured.contains { $0.contains(FakeBrokerService.token) })
    }

    @Test func fastPathOnlyForCachedTokensWithoutQuery() async throws {
        let fixture = RouterFixture(cachedAccounts: ["fast"])
        let connection = RouterFixture.connection()
        func immediate(_ target: String, method: String = "GET") -> HTTPResponse? {
            fixture.router.handleImmediately(HTTPRequest(method: method, target: target), connection: connection)
        }
        #expect(try immediate("/v1/accounts/fast/token").map { try $0.decoded(TokenGrant.self) } == FakeBrokerService.grant)
        #expect(immediate("/v1/accounts/slow/token") == nil)
        #expect(immediate("/v1/accounts/fast/token?min_ttl=10") == nil)
        #expect(immediate("/v1/status") == nil)
        #expect(immediate("/v1/nope")?.status == 404)
        #expect(immediate("/v1/status", method: "POST")?.status == 405)
        #expect(fixture.service.recorded == ["cachedToken(fast)", "cachedToken(slow)"])
    }

    @Test func refusalsAreLoggedOncePerUIDPerInterval() {
        let throttle = RefusalThrottle(interval: 60)
        #expect(throttle.shouldLog(uid: 1, now: 1_000))
        #expect(!throttle.shouldLog(uid: 1, now: 1_059))
        #expect(throttle.shouldLog(uid: 2, now: 1_059))
        #expect(throttle.shouldLog(uid: 1, now: 1_060))
    }

    @Test func aNarrowedTokensAuditLineNamesWhatWasIssued() async throws {
        let fixture = RouterFixture()
        let response = await fixture.send(
            "GET",
            "/v1/accounts/work/token?scope=profile%20openid&resource=https%3A%2F%2Fapi.example.com%2F&audience=api%3A%2F%2Fr",
            connection: RouterFixture.connection(pid: 31))
        #expect(response.status == 200)
        #expect(
            fixture.logs.captured.contains(
                "info: audit: token account=work scope=\"openid profile\" resource=https://api.example.com/ audience=api://r pid=31 uid=1000 "
                    + "exe=/usr/bin/prog-31 comm=\"prog (31)\" start=931 socket=main owner=1000"), "\(fixture.logs.captured)")
        let proof = #"{"method":"GET","url":"https://api.example.com/x","audience":"api://r"}"#
        #expect(await fixture.send("POST", "/v1/accounts/work/dpop-proof", body: proof).status == 200)
        #expect(
            fixture.logs.captured.contains {
                $0.contains("audit: dpop_proof account=work method=GET origin=https://api.example.com audience=api://r pid=")
            },
            "\(fixture.logs.captured)")
    }

    @Test func aRateLimitedAnswerCarriesRetryAfter() {
        let response = APIRouter.errorResponse(WireError(code: .rateLimited, message: "slow down", retryAfter: 42))
        #expect(response.status == 429)
        #expect(response.headers["Retry-After"] == "42")
        #expect(response.wireError?.code == .rateLimited)
        #expect(!response.text.contains("42"), "Retry-After is a header, not a body field")
    }
}
