import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import MockProvider
import Testing

/// Key rotation, refresh-token reuse detection, injected failures and the device grant.
@Suite struct MockProviderGrantTests {
    @Test func rotatedKeyIsFetchedOnceAndAccepted() async throws {
        let harness = try await MockProviderHarness(jwksRefetchInterval: .zero)
        defer { Task { await harness.stop() } }
        let login = try await harness.loggedIn()
        #expect(harness.provider.stats.jwksRequests == 1)
        let newKid = try harness.provider.rotateKey()
        #expect(harness.provider.publishedKeyIDs.count == 2 && harness.provider.publishedKeyIDs.last == newKid)
        let refreshed = try await harness.client.refresh(login.tokens, metadata: harness.metadata, client: harness.configuration)
        #expect(refreshed.idTokenClaims?.subject == "mock-user")
        #expect(harness.provider.stats.jwksRequests == 2)
        _ = try await harness.client.refresh(refreshed, metadata: harness.metadata, client: harness.configuration)
        #expect(harness.provider.stats.jwksRequests == 2)
    }

    @Test func unknownKidAfterRefetchIsRefused() async throws {
        let harness = try await MockProviderHarness(jwksRefetchInterval: .zero)
        defer { Task { await harness.stop() } }
        let login = try await harness.loggedIn()
        harness.provider.configure { $0.idTokenDefect = .unknownKid }
        await #expect(throws: OIDCError.idToken(.unknownKey(kid: "unpublished-key"))) {
            try await harness.client.refresh(login.tokens, metadata: harness.metadata, client: harness.configuration)
        }
        #expect(harness.provider.stats.jwksRequests == 2)
    }

    @Test func reusingARotatedRefreshTokenRevokesTheFamily() async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        let login = try await harness.loggedIn()
        let (metadata, configuration) = (harness.metadata, harness.configuration)
        let second = try await harness.client.refresh(login.tokens, metadata: metadata, client: configuration)
        await #expect(throws: OIDCError.self) {
            try await harness.client.refresh(login.tokens, metadata: metadata, client: configuration)
        }
        #expect(harness.provider.stats.familyRevocations == 1)
        do {
            _ = try await harness.client.refresh(second, metadata: metadata, client: configuration)
            Issue.record("the family should be revoked")
        } catch {
            #expect(error.isInvalidGrant && error.disposition == .terminal)
        }
        #expect(try await browserGet(harness.provider.url("userinfo")).status == 401)
    }

    @Test func injectedFailuresAreClassified() async throws {
        let harness = try await MockProviderHarness()
        defer { Task { await harness.stop() } }
        let login = try await harness.loggedIn()
        let faults: [(MockFault, FailureDisposition)] = [
            (MockFault(.status, status: 503, retryAfter: "7", remaining: 1), .transient(retryAfter: .seconds(7))),
            (MockFault(.status, status: 500, remaining: 1), .transient(retryAfter: nil)),
            (MockFault(.garbageJSON, remaining: 1), .transient(retryAfter: nil)),
            (MockFault(.invalidGrant, remaining: 1), .terminal),
        ]
        for (fault, disposition) in faults {
            harness.provider.configure { $0.faults["token"] = fault }
            do {
                _ = try await harness.client.refresh(login.tokens, metadata: harness.metadata, client: harness.configuration)
                Issue.record("\(fault.kind) should fail")
            } catch {
                #expect(error.disposition == disposition, "\(fault.kind): \(error)")
            }
        }
        // Faults were used up: the (never rotated-out) refresh token still works, slowly.
        harness.provider.configure { $0.faults["token"] = MockFault(.slow, delayMilliseconds: 50, remaining: 1) }
        #expect(
            try await harness.client.refresh(login.tokens, metadata: harness.metadata, client: harness.configuration)
                .refreshToken != nil)
    }

    @Test func deviceGrantPollsThroughSlowDownAndPending() async throws {
        var knobs = MockProviderConfiguration()
        (knobs.deviceSlowDownPolls, knobs.devicePendingPolls, knobs.deviceInterval) = (1, 1, 1)
        let time = TestTime(wall: Date())
        let harness = try await MockProviderHarness(knobs, time: time.time)
        defer { Task { await harness.stop() } }
        let session = try await DeviceLoginSession.start(
            client: harness.client, metadata: harness.metadata, configuration: harness.configuration)
        #expect(session.authorization.userCode == "MOCK-CODE")
        let result = try await session.result().get()
        #expect(result.subject == "mock-user" && result.tokens.refreshToken != nil)
        #expect(time.sleeps == [.seconds(1), .seconds(6), .seconds(6)])
        #expect(harness.provider.stats.devicePolls == 3)
    }

    @Test func deviceGrantDenialAndCancel() async throws {
        var knobs = MockProviderConfiguration()
        knobs.deviceDenies = true
        let harness = try await MockProviderHarness(knobs, time: TestTime(wall: Date()).time)
        defer { Task { await harness.stop() } }
        let denied = try await DeviceLoginSession.start(
            client: harness.client, metadata: harness.metadata, configuration: harness.configuration)
        #expect(await denied.result() == .failure(.deviceAccessDenied))

        // Real (short) sleeps this time, so the cancel lands while polling waits.
        let slow = OIDCClient(transport: try MockProviderHarness.httpClient())
        let pending = try await DeviceLoginSession.start(
            client: slow, metadata: harness.metadata, configuration: harness.configuration)
        pending.cancel()
        #expect(await pending.result() == .failure(.cancelled))
    }
}
