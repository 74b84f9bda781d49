import BrokerCore
import BrokerHTTP
import Foundation
import MockProvider
import Testing

/// The mock's WorkOS User Management mode refuses what WorkOS refuses, so a client that posts RFC
/// 6749 forms there, or forgets `provider=authkit`, fails its tests instead of passing them.
@Suite struct MockProviderUserManagementTests {
    static func provider(enabled: Bool = true) throws -> MockProvider {
        var knobs = MockProviderConfiguration()
        knobs.userManagement = enabled
        return try MockProvider(configuration: knobs)
    }

    static func send(_ request: HTTPClientRequest) async throws -> HTTPResponse {
        try await MockProviderHarness.httpClient(pooled: false).send(request)
    }

    @Test func aFormBodyAtAuthenticateIsRefused() async throws {
        let provider = try Self.provider()
        let form = HTTPClientRequest(
            method: "POST", url: provider.url("user_management/authenticate"),
            headers: HTTPHeaders([("Content-Type", "application/x-www-form-urlencoded")]),
            body: Array("grant_type=refresh_token&refresh_token=x&client_id=mock-client".utf8))
        let answer = try await Self.send(form)
        #expect(answer.status == 400 && String(decoding: answer.body, as: UTF8.self).contains("invalid_request"))
        #expect(provider.stats.nonJSONAuthenticateRequests == 1 && provider.stats.refreshes == 0)
        await provider.stop()
    }

    @Test func authorizeWithoutProviderAuthKitIsRefused() async throws {
        let provider = try Self.provider()
        let url =
            provider.url("user_management/authorize")
            + "?response_type=code&client_id=mock-client&redirect_uri=http%3A%2F%2F127.0.0.1%3A1%2Fcallback&state=s"
            + "&code_challenge=\(String(repeating: "a", count: 43))&code_challenge_method=S256"
        #expect(try await Self.send(HTTPClientRequest(url: url)).status == 400)
        let answer = try await Self.send(HTTPClientRequest(url: url + "&provider=authkit"))
        #expect(answer.status == 302 && answer.headers["Location"]?.contains("iss=") == false)
        await provider.stop()
    }

    @Test func theModeIsOffByDefault() async throws {
        let provider = try Self.provider(enabled: false)
        #expect(try await Self.send(HTTPClientRequest(url: provider.url("user_management/sessions/logout"))).status == 404)
        await provider.stop()
    }
}
