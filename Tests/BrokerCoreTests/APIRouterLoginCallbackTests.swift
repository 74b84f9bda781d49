import BrokerProtocol
import Testing

@testable import BrokerCore

/// `POST /v1/logins/callback`: the body's URL reaches the service with the caller's uid; the
/// route takes no query, needs its body and answers only POST.
@Suite struct APIRouterLoginCallbackTests {
    @Test func theURLGoesToTheServiceWithTheCallersUID() async throws {
        let fixture = RouterFixture()
        let answer = await fixture.send(
            "POST", "/v1/logins/callback", body: #"{"url":"shop.4242.app://callback?code=c&state=s"}"#)
        #expect(answer.status == 200)
        #expect(try answer.decoded(LoginStatus.self).outcome == .succeeded)
        #expect(fixture.service.recorded == ["loginCallback(\(RouterFixture.daemonUID),39 bytes)"])
    }

    @Test func refusesAMissingBodyAQueryAndOtherMethods() async throws {
        let fixture = RouterFixture()
        #expect(await fixture.send("POST", "/v1/logins/callback").status == 400)
        #expect(await fixture.send("POST", "/v1/logins/callback?wait=1", body: #"{"url":"a:/b"}"#).status == 400)
        let get = await fixture.send("GET", "/v1/logins/callback")
        #expect(get.status == 405 && get.headers["Allow"] == "POST")
        #expect(fixture.service.recorded.isEmpty)
    }
}

/// `redirect_uri` is checked at the edge like the loopback redirect fields.
@Suite struct AccountValidationRedirectURITests {
    static func account(_ uri: String?, path: String? = nil, port: Int? = nil, host: String? = nil) -> AccountConfiguration {
        AccountConfiguration(
            name: "shop", issuer: "https://idp.example", clientID: "cli", redirectHost: host, redirectPort: port,
            redirectPath: path, redirectURI: uri)
    }

    @Test func aPrivateUseSchemeIsAccepted() {
        #expect((try? AccountValidation.check(Self.account("shop.4242.app://callback")).get()) != nil)
        #expect((try? AccountValidation.check(Self.account("myapp:/cb")).get()) != nil, "no dot: a warning in authctl only")
    }

    @Test(arguments: ["https://app.example/cb", "file:///tmp/x", "javascript:/x", "myapp:/cb?x=1", "no scheme"])
    func badURIsAreRefused(uri: String) {
        guard case .failure(let error) = AccountValidation.check(Self.account(uri)) else {
            Issue.record("\(uri) was accepted")
            return
        }
        #expect(error.code == .invalidRequest && error.message.contains("redirect URI"))
    }

    @Test func theLoopbackOptionsAreMutuallyExclusiveWithIt() {
        for account in [
            Self.account("shop.4242.app://callback", path: "/callback"),
            Self.account("shop.4242.app://callback", port: 8080), Self.account("shop.4242.app://callback", host: "localhost"),
        ] {
            guard case .failure(let error) = AccountValidation.check(account) else {
                Issue.record("accepted with a loopback option")
                continue
            }
            #expect(error.message.contains("--redirect-uri replaces the loopback redirect"))
        }
    }
}
