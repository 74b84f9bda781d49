import BrokerCore
import BrokerProtocol
import Foundation
import TestSupport
import Testing

/// Narrowed refreshes spend the account's one refresh token, so they get what its plain refresh
/// gets: drained at shutdown (the rotated token is committed). A provider's refusal of a narrowed
/// refresh is the caller's error only; the account signs out only when its plain refresh is
/// rejected. Resources and audiences need the account's allow-lists, and new narrowings are
/// rate-limited per account.
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

    static func narrowed(_ broker: TokenBroker, _ narrowing: TokenNarrowing) async -> Result<TokenGrant, WireError> {
        do throws(WireError) {
            return .success(try await broker.narrowedToken(account: TokenBroker.key("work"), narrowing: narrowing, minTTL: nil))
        } catch {
            return .failure(error)
        }
    }

    static func audience(_ audience: String) -> TokenNarrowing {
        try! TokenNarrowing(scopes: [], resources: [], audience: audience)
    }

    /// The refresh token itself is dead: the narrowed caller gets `narrowing_refused`, and the plain
    /// refresh that checks the token is rejected too — that one signs the account out.
    @Test func aNarrowedInvalidGrantSignsOutOnlyThroughThePlainRefreshsRejection() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        #expect(try await harness.addAndLogin(broker, allowNarrowing: true).outcome == .succeeded)
        harness.provider.with { $0.mode = .invalidGrant }
        guard case .failure(let error) = await Self.narrowed(broker) else {
            Issue.record("a rejected narrowed refresh served a token")
            return
        }
        #expect(error.code == .narrowingRefused)
        #expect(await eventually { (try? await broker.account(named: "work").state) == .loginRequired })
        harness.provider.with { $0.mode = .normal }
        // The still-valid access token is not served on, and the tokens are gone from the vault.
        #expect(await broker.tokenOrCode() == .error(.loginRequired))
        await broker.shutdown()
        let restarted = try await harness.makeBroker()
        #expect(await restarted.tokenOrCode() == .error(.loginRequired))
        await restarted.shutdown()
    }

    @Test(arguments: ["invalid_grant", "consent_required", "interaction_required"])
    func aNarrowedRefusalIsTheCallersErrorAndTheAccountStaysActive(_ code: String) async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        #expect(
            try await harness.addAndLogin(broker, allowNarrowing: true, narrowAudiences: ["api://reports"]).outcome == .succeeded)
        let before = await broker.tokenOrCode()
        harness.provider.with { $0.narrowedRefusal = code }
        guard case .failure(let error) = await Self.narrowed(broker, Self.audience("api://reports")) else {
            Issue.record("a refused narrowed refresh served a token")
            return
        }
        #expect(error.code == .narrowingRefused)
        #expect(error.message.contains("unchanged"), "\(error.message)")
        if code == "invalid_grant" {
            // The check of the refresh token: one plain refresh, which the provider answers.
            #expect(await eventually { harness.provider.with { $0.refreshes } == 1 })
        }
        #expect(await eventually { (try? await broker.account(named: "work").state) == .active })
        guard case .token = await broker.tokenOrCode() else {
            Issue.record("the account's own token is no longer served")
            return
        }
        if code != "invalid_grant" { #expect(await broker.tokenOrCode() == before, "nothing in the account changed") }
        // Restarted from the vault: the tokens were never deleted.
        await broker.shutdown()
        let restarted = try await harness.makeBroker()
        guard case .token = await restarted.tokenOrCode() else {
            Issue.record("the account's tokens were deleted")
            return
        }
        await restarted.shutdown()
    }

    @Test func aResourceOrAudienceNotOnTheAllowListIsRefusedBeforeAnythingIsSpent() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        #expect(
            try await harness.addAndLogin(
                broker, allowNarrowing: true, narrowResources: ["https://api.example.com/"], narrowAudiences: ["api://reports"]
            ).outcome == .succeeded)
        let other = try TokenNarrowing(scopes: [], resources: ["https://other.example.com/"], audience: nil)
        for narrowing in [other, Self.audience("api://other")] {
            guard case .failure(let error) = await Self.narrowed(broker, narrowing) else {
                Issue.record("\(narrowing) was served")
                continue
            }
            #expect(error.code == .narrowingNotAllowed)
            #expect(
                error.message.contains(
                    narrowing.resources.isEmpty ? "--allow-audience api://other" : "--allow-resource https://other.example.com/"),
                "\(error.message)")
        }
        #expect(harness.provider.with { $0.refreshes } == 0, "nothing spent")
        let listed = try TokenNarrowing(scopes: [], resources: ["https://api.example.com/"], audience: "api://reports")
        #expect(try await Self.narrowed(broker, listed).get().accessToken.hasPrefix("tok_access_"))
        await broker.shutdown()
    }

    @Test func newNarrowingsAreRateLimitedPerAccountAndCachedOnesStillServed() async throws {
        var harness = try BrokerHarness()
        harness.narrowedRefreshBudget = (burst: 2, perMinute: 1)
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        let audiences = ["api://a", "api://b", "api://c"]
        #expect(try await harness.addAndLogin(broker, allowNarrowing: true, narrowAudiences: audiences).outcome == .succeeded)
        let first = try await Self.narrowed(broker, Self.audience("api://a")).get()
        _ = try await Self.narrowed(broker, Self.audience("api://b")).get()
        guard case .failure(let error) = await Self.narrowed(broker, Self.audience("api://c")) else {
            Issue.record("a third new narrowing within the burst of two was served")
            return
        }
        #expect(error.code == .rateLimited)
        #expect(error.retryAfter == 60)
        #expect(harness.provider.with { $0.refreshes } == 2)
        // Cached keys and the plain token are still served.
        #expect(try await Self.narrowed(broker, Self.audience("api://a")).get().accessToken == first.accessToken)
        guard case .token = await broker.tokenOrCode() else {
            Issue.record("the plain token was rate-limited")
            return
        }
        harness.clock.advance(60)
        #expect(try await Self.narrowed(broker, Self.audience("api://c")).get().accessToken.hasPrefix("tok_access_"))
        await broker.shutdown()
    }
}
