import BrokerCore
import BrokerProtocol
import Foundation
import TestSupport
import Testing

/// The broker end to end against the in-process provider: login, serving, refresh with rotation,
/// restart, logout, and what is (not) logged.
@Suite(.timeLimit(.minutes(1)))
struct TokenBrokerTests {
    @Test func loginRefreshRestartLogoutCycle() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        let login = try await harness.addAndLogin(broker)
        #expect(login.outcome == .succeeded)
        let first = try harness.provider.issuedAccess(0)
        #expect(await broker.tokenOrCode() == .token(first))
        #expect(await broker.status().accounts.map(\.state) == [.active])

        // Lifetime 100 s → margin 50 s, jitter ≤ 12.5 s: 60 s later the proactive refresh is due.
        harness.clock.advance(60)
        #expect(await eventually { harness.provider.with { $0.refreshes } == 1 })
        let second = try harness.provider.issuedAccess(1)
        #expect(await eventually { await broker.tokenOrCode() == .token(second) })
        #expect(harness.provider.with { $0.familyRevocations } == 0)
        let refreshed = try await broker.account(named: "work")
        #expect(refreshed.lastRefresh != nil)
        #expect(refreshed.configuration?.clientSecret == nil)
        await broker.shutdown()

        // A new broker on the same vault file serves the rotated tokens without the network.
        let restarted = try await harness.makeBroker()
        #expect(await restarted.tokenOrCode() == .token(second))
        #expect(harness.provider.with { $0.refreshes } == 1)

        let logout = try await restarted.logout(account: "work")
        #expect(logout.revoked)
        let revoked = harness.provider.with { $0.revoked }
        #expect(revoked.map(\.hint) == ["refresh_token", "access_token"])
        let rotated = try harness.provider.issuedRefresh(1)
        #expect(revoked.map(\.token) == [rotated, second])
        #expect(logout.endSessionURL?.hasPrefix("\(harness.provider.issuer)/logout?") == true)
        #expect(await restarted.tokenOrCode() == .error(.loginRequired))
        #expect(restarted.cachedToken(account: "work", now: harness.clock.now()) == nil)
        await restarted.shutdown()

        // No token value in any log line across the whole cycle.
        let minted = harness.provider.with { $0.issuedAccess + $0.issuedRefresh }
        let lines = harness.logs.captured
        #expect(!lines.isEmpty)
        for line in lines {
            #expect(!line.contains("tok_"), "a token leaked into: \(line)")
            #expect(!minted.contains { line.contains($0) })
        }
    }

    @Test func cachedTokenServesOutsideTheMarginOnly() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        harness.provider.with { $0.tokenDelay = .seconds(30) }  // keep any refresh from landing
        let broker = try await harness.makeBroker()
        // The token was obtained between these two instants (seconds apart on a loaded machine).
        let before = harness.clock.now()
        _ = try await harness.addAndLogin(broker)
        let now = harness.clock.now()
        let access = try harness.provider.issuedAccess(0)
        let grant = try #require(broker.cachedToken(account: "work", now: now))
        #expect(grant.accessToken == access)
        #expect(grant.tokenType == "Bearer")
        #expect(grant.expiresAt != nil)
        // 100 s lifetime, 50 s margin: 49 s after it was obtained the token is served, 51 s after it is not.
        #expect(broker.cachedToken(account: "work", now: before + 49) != nil)
        #expect(broker.cachedToken(account: "work", now: now + 51) == nil)
        #expect(broker.cachedToken(account: "other", now: now) == nil)
        #expect(broker.metrics().contains("authbroker_tokens_served_total 2"))
        await broker.shutdown()
    }

    @Test func concurrentCallersShareOneRefreshPerExpiry() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        harness.provider.with { $0.tokenDelay = .milliseconds(50) }
        let broker = try await harness.makeBroker()
        _ = try await harness.addAndLogin(broker)
        for round in 1...3 {
            harness.clock.advance(101)  // expired: every caller must wait for the refresh
            let answers = await withTaskGroup(of: TokenAnswer.self) { group in
                for _ in 0..<32 { group.addTask { await broker.tokenOrCode(minTTL: 30) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let latest = harness.provider.with { $0.issuedAccess.last! }
            #expect(answers.count == 32)
            #expect(answers.allSatisfy { $0 == .token(latest) }, "round \(round): \(answers)")
            #expect(harness.provider.with { $0.refreshes } == round)
            #expect(harness.provider.with { $0.familyRevocations } == 0)
        }
        #expect(broker.metrics().contains("authbroker_refreshes_total{outcome=\"success\"} 3"))
        await broker.shutdown()
    }

    @Test func providerOutageServesValidTokenThenUnavailableThenRecovers() async throws {
        let harness = try BrokerHarness()
        defer { harness.remove() }
        let broker = try await harness.makeBroker()
        _ = try await harness.addAndLogin(broker)
        let first = try harness.provider.issuedAccess(0)
        harness.provider.with { $0.mode = .unavailable }
        harness.clock.advance(60)
        #expect(await eventually { broker.metrics().contains("authbroker_refreshes_total{outcome=\"transient\"} 1") })
        #expect(await broker.tokenOrCode() == .token(first))

        harness.clock.advance(45)  // past expiry
        #expect(await broker.tokenOrCode() == .error(.providerUnavailable))
        #expect(await broker.status().accounts.first?.lastError?.code == .providerUnavailable)

        harness.provider.with { $0.mode = .normal }
        let recovered = await eventually {
            harness.clock.advance(5)
            if case .token = await broker.tokenOrCode() { return true }
            return false
        }
        #expect(recovered)
        #expect(await broker.tokenOrCode() == .token(harness.provider.with { $0.issuedAccess.last! }))
        #expect(await broker.status().accounts.first?.state == .active)
        await broker.shutdown()
    }

    @Test func terminalFailureRequiresLoginAndNotifiesOnce() async throws {
        var harness = try BrokerHarness()
        defer { harness.remove() }
        let file = harness.directory.appending("notified")
        harness.notifyCommand = "env | grep '^AUTHBROKER_' | sort >> '\(file)'; echo run >> '\(file)'"
        let broker = try await harness.makeBroker()
        _ = try await harness.addAndLogin(broker)
        harness.provider.with { $0.mode = .invalidGrant }
        harness.clock.advance(60)
        #expect(await eventually { (try? String(contentsOfFile: file, encoding: .utf8))?.contains("run") == true })
        let result = await broker.tokenOrCode(minTTL: 90)
        #expect(result == .error(.loginRequired))
        do throws(WireError) {
            _ = try await broker.token(account: "work", minTTL: nil)
            Issue.record("a token was served after invalid_grant")
        } catch {
            #expect(error.message.contains("authctl login work"))
        }
        harness.clock.advance(120)
        try await Task.sleep(for: .milliseconds(100))
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.filter { $0 == "run" }.count == 1)
        #expect(lines.contains("AUTHBROKER_ACCOUNT=work"))
        #expect(lines.contains("AUTHBROKER_OWNER_UID=\(testRequester.uid)"))
        #expect(lines.contains { $0.hasPrefix("AUTHBROKER_REASON=the provider rejected the refresh") })
        #expect(!lines.contains { $0.hasPrefix("AUTHBROKER_URL=") })
        #expect(await broker.status().accounts.first?.state == .loginRequired)
        #expect(broker.metrics().contains("authbroker_refreshes_total{outcome=\"terminal\"} 1"))
        await broker.shutdown()
    }
}
