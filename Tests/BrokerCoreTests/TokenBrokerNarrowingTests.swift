import BrokerCore
import BrokerProtocol
import Foundation
import TestSupport
import Testing

/// Narrowed refreshes spend the account's one refresh token, so they get what its plain refresh
/// gets: drained at shutdown (the rotated token is committed), and a rejected refresh token signs
/// the account out at once. DPoP accounts are refused before anything is spent.
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerNarrowingTests {
    static let openid = try! TokenNarrowing(scopes: ["openid"], resources: [], audience: nil)

    static func narrowed(_ broker: TokenBroker) async -> Result<TokenGrant, WireError> {
        do throws(WireError) {
            return .success(try await broker.narrowedToken(account: TokenBroker.key("work"), narrowing: openid, minTTL: nil))
        } catch {
            return .failure(error)
        }
    }

    @Test func aNarrowedRefreshInFlightAtShutdownIsCommitted() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        #expect(try await harness.addAndLogin(broker, allowNarrowing: true).outcome == .succeeded)
        harness.provider.with { $0.tokenDelay = .milliseconds(300) }
        let caller = Task { await Self.narrowed(broker) }
        #expect(await eventually { harness.logs.captured.contains { $0.contains("refreshing for a narrowed token") } })
        await broker.shutdown()
        let minted = harness.provider.with { $0.issuedAccess.last }
        #expect(try await caller.value.get().accessToken == minted)
        harness.provider.with { $0.tokenDelay = nil }
        // The restarted broker presents the rotated refresh token, not the spent one.
        let restarted = try await harness.makeBroker()
        harness.clock.advance(60)
        guard case .token = await restarted.tokenOrCode(minTTL: 90) else {
            Issue.record("the rotated refresh token was not committed: \(harness.logs.captured)")
            return
        }
        #expect(harness.provider.with { $0.familyRevocations } == 0)
        await restarted.shutdown()
    }

    @Test func aRejectedNarrowedRefreshSignsTheAccountOutAtOnce() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        #expect(try await harness.addAndLogin(broker, allowNarrowing: true).outcome == .succeeded)
        harness.provider.with { $0.mode = .invalidGrant }
        guard case .failure(let error) = await Self.narrowed(broker) else {
            Issue.record("a rejected narrowed refresh served a token")
            return
        }
        #expect(error.code == .loginRequired)
        harness.provider.with { $0.mode = .normal }
        #expect(try await broker.account(named: "work").state == .loginRequired)
        // The still-valid access token is not served on, and the tokens are gone from the vault.
        #expect(await broker.tokenOrCode() == .error(.loginRequired))
        await broker.shutdown()
        let restarted = try await harness.makeBroker()
        #expect(await restarted.tokenOrCode() == .error(.loginRequired))
        await restarted.shutdown()
    }
}
