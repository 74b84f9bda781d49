import BrokerCore
import BrokerCrypto
import BrokerProtocol
import Testing

/// The refresh cycle: proactive refresh, single-flight, stale generations, min_ttl, backoff, terminal
/// failures, and wake-ups only when something is due.
@Suite struct AccountStateMachineRefreshTests {
    typealias Machine = AccountStateMachine
    let ids = (1...3).map { Fixture.id(UInt64($0)) }

    @Test func proactiveRefreshServesTheOldTokenMeanwhile() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)
        var machine = Fixture.machine(holding: tokens, now: 2_000)
        #expect(machine.timerFired(now: 2_030) == [.scheduleWakeUp(at: 4_240)], "an early wake-up re-arms for the plan")
        let start = machine.timerFired(now: 4_240)
        #expect(start == [.startRefresh(refreshToken: Secret("refresh-1"), generation: 0, attempt: 1), .cancelWakeUp])
        #expect(machine.tokenRequested(ids[0], minTTL: nil, now: 4_250) == [.serveToken(tokens, to: [ids[0]])])

        // The provider did not rotate the refresh token: the old one is carried over.
        let fresh = Fixture.tokens("access-2", obtainedAt: 4_251, lifetime: 3_600, refresh: nil)
        var expected = fresh
        expected.refreshToken = Secret("refresh-1")
        let done = machine.refreshSucceeded(fresh, generation: 0, now: 4_251)
        #expect(done == [.persistTokens(expected), .scheduleWakeUp(at: 4_251 + 3_600 - 360)])
        #expect(machine.state == .active(expected, checkAt: 4_251 + 3_600 - 360))
        #expect(machine.lastRefreshAt == 4_251)
    }

    @Test func threeCallersDuringOneRefreshShareIt() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 1_000, lifetime: 300), now: 1_000)
        var actions: [Machine.Action] = []
        for id in ids { actions += machine.tokenRequested(id, minTTL: nil, now: 1_400) }
        #expect(actions.refreshStarts.count == 1)
        #expect(actions.filter { if case .waitForRefresh = $0 { true } else { false } }.count == 3)
        #expect(actions.first == .waitForRefresh(ids[0]))  // parked before the refresh starts
        #expect(machine.waitingRequests == ids)

        let fresh = Fixture.tokens("access-2", obtainedAt: 1_401, lifetime: 300, refresh: "refresh-2")
        let done = machine.refreshSucceeded(fresh, generation: 0, now: 1_401)
        #expect(done.first == .persistTokens(fresh))  // persisted before anyone sees it
        #expect(done.served.map(\.token) == ["access-2"])
        #expect(done.served.first?.to == ids)
        #expect(machine.waitingRequests.isEmpty)
    }

    @Test func callersWithMinTTLJoinTheSameRefresh() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600), now: 1_000)
        var actions: [Machine.Action] = []
        for (offset, id) in ids.enumerated() {
            actions += machine.tokenRequested(id, minTTL: 3_000, now: 2_000 + Double(offset))
        }
        #expect(actions.refreshStarts.count == 1)
        #expect(actions.served.isEmpty)
        let done = machine.refreshSucceeded(Fixture.tokens("access-2", obtainedAt: 2_003), generation: 0, now: 2_003)
        #expect(done.served.first?.to == ids)
    }

    @Test func staleCompletionAfterLogoutIsDroppedAndRevoked() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 300)
        var machine = Fixture.machine(holding: tokens, now: 1_000)
        _ = machine.tokenRequested(ids[0], minTTL: nil, now: 1_400)
        let logout = machine.logout(now: 1_401)
        #expect(logout.count == 3)
        #expect(Array(logout.prefix(2)) == [.revoke(tokens), .deleteTokens])
        #expect(logout.failures.map(\.code) == ["login_required"] && logout.failures.first?.to == [ids[0]])

        let late = Fixture.tokens("access-2", obtainedAt: 1_402)
        #expect(machine.refreshSucceeded(late, generation: 0, now: 1_402) == [.revoke(late)])
        #expect(machine.refreshFailed(.terminal(message: "invalid_grant"), generation: 0, now: 1_402) == [])
        #expect(machine.state == .loggedOut)
    }

    @Test func staleCompletionAfterSecurityRelevantConfigurationChangeIsDropped() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 1_000, lifetime: 300), now: 1_000)
        _ = machine.tokenRequested(ids[0], minTTL: nil, now: 1_400)
        let changed = machine.configurationChanged(securityRelevant: true, now: 1_401)
        #expect(changed.first == .deleteTokens)
        #expect(changed.failures.map(\.code) == ["login_required"])
        let late = Fixture.tokens("access-2", obtainedAt: 1_402)
        #expect(machine.refreshSucceeded(late, generation: 0, now: 1_402) == [.revoke(late)])
        #expect(machine.state == .loginRequired(.configurationChanged))
        #expect(machine.currentTokens == nil)
    }

    @Test func staleCompletionWhileANewerRefreshIsInFlightIsDropped() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 1_000, lifetime: 300), now: 1_000)
        #expect(machine.timerFired(now: 1_240).refreshStarts.map(\.0) == [0])
        _ = machine.logout(now: 1_241)
        _ = machine.loginStarted(
            .init(loginID: "L1", authorizationURL: "https://idp.test/a", deadline: 1_600),
            now: 1_242)
        let fromLogin = Fixture.tokens("access-new", obtainedAt: 1_243, lifetime: 300)
        _ = machine.loginSucceeded(loginID: "L1", tokens: fromLogin, now: 1_243)
        #expect(machine.generation == 2)
        #expect(machine.timerFired(now: 1_483).refreshStarts.map(\.0) == [2])
        // The refresh from before the logout finally answers: same state shape, older generation.
        let late = Fixture.tokens("access-stale", obtainedAt: 1_484)
        #expect(machine.refreshSucceeded(late, generation: 0, now: 1_484) == [.revoke(late)])
        #expect(machine.refreshFailed(.terminal(message: "invalid_grant"), generation: 0, now: 1_484) == [])
        #expect(machine.currentTokens?.accessToken == Secret("access-new"))
        let current = machine.refreshSucceeded(Fixture.tokens("access-3", obtainedAt: 1_485), generation: 2, now: 1_485)
        #expect(current.first == .persistTokens(Fixture.tokens("access-3", obtainedAt: 1_485)))
    }

    @Test func newLoginDuringARefreshWinsAndServesTheWaiters() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 1_000, lifetime: 300), now: 1_000)
        _ = machine.tokenRequested(ids[0], minTTL: nil, now: 1_400)
        _ = machine.loginStarted(
            .init(loginID: "L1", authorizationURL: "https://idp.test/a", deadline: 1_700),
            now: 1_400)
        let fromLogin = Fixture.tokens("access-login", obtainedAt: 1_410, lifetime: 300)
        let done = machine.loginSucceeded(loginID: "L1", tokens: fromLogin, now: 1_410)
        #expect(done.served.map(\.token) == ["access-login"] && done.served.first?.to == [ids[0]])
        let late = Fixture.tokens("access-2", obtainedAt: 1_411)
        #expect(machine.refreshSucceeded(late, generation: 0, now: 1_411) == [.revoke(late)])
        #expect(machine.currentTokens == fromLogin)
    }

    @Test func brandNewTokenIsServedAsIsWhateverMinTTL() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 1_000, lifetime: 300), now: 1_000)
        let actions = machine.tokenRequested(ids[0], minTTL: 900, now: 1_010)
        #expect(actions.served.map(\.token) == ["access-1"])
        #expect(actions.refreshStarts.isEmpty)
    }

    @Test func atMostOneRefreshPerSecondWhateverCallersAsk() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 100, lifetime: 5), now: 100)
        var starts: [Double] = []
        var answered = 0
        // 300 callers, 10 ms apart, each asking for more than a 5-second token can ever give.
        for step in 0..<300 {
            let now = 101 + Double(step) * 0.01
            var actions = machine.tokenRequested(Fixture.id(UInt64(step)), minTTL: 10, now: now)
            answered += actions.served.count
            if !actions.refreshStarts.isEmpty {
                starts.append(now)
                // The provider answers at once.
                actions = machine.refreshSucceeded(
                    Fixture.tokens("access-\(step)", obtainedAt: now, lifetime: 5), generation: 0, now: now)
                answered += actions.served.map(\.to.count).reduce(0, +)
            }
        }
        #expect(answered == 300)
        #expect(starts.count == 3)
        for (a, b) in zip(starts, starts.dropFirst()) { #expect(b - a >= 1) }
    }

    @Test func expiredTokenRightAfterARefreshWaitsForTheDeferredOne() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 100, lifetime: 60), now: 100)
        _ = machine.tokenRequested(ids[0], minTTL: nil, now: 200)
        // A provider that hands out an already expired token.
        let done = machine.refreshSucceeded(
            Fixture.tokens("access-2", obtainedAt: 199, lifetime: 1),
            generation: 0, now: 200.1)
        #expect(done.failures.map(\.code) == ["provider_unavailable"])
        #expect(done.wakeUps == [201])
        #expect(machine.tokenRequested(ids[1], minTTL: nil, now: 200.5) == [.waitForRefresh(ids[1])])
        #expect(machine.timerFired(now: 201).refreshStarts.count == 1)
    }

    @Test func transientFailuresBackOffAndKeepServingUntilExpiry() throws {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 300)  // expires 1300, refresh planned at 1240
        var machine = Fixture.machine(holding: tokens, now: 1_000)
        var now = 1_240.0
        #expect(machine.timerFired(now: now).refreshStarts.map(\.1) == [1])
        for attempt in 1...5 {
            let failed = machine.refreshFailed(
                .transient(message: "connection refused", retryAfter: nil),
                generation: 0, now: now)
            let nominal = RefreshBackoff().nominalDelay(afterAttempt: attempt)
            #expect(failed == [.scheduleWakeUp(at: now + nominal)])  // jitter pinned to 0
            #expect(machine.tokenRequested(ids[0], minTTL: nil, now: now + 0.5).served.map(\.token) == ["access-1"])
            now += nominal
            #expect(machine.timerFired(now: now).refreshStarts.map(\.1) == [attempt + 1])
        }
        #expect(now == 1_271)
        _ = machine.refreshFailed(.transient(message: "connection refused", retryAfter: 120), generation: 0, now: now)
        #expect(machine.nextWakeUp(now: now) == now + 120)  // Retry-After: no earlier wake-up
        // The token expired meanwhile: provider_unavailable (exit 75), not login_required.
        let late = machine.tokenRequested(ids[1], minTTL: nil, now: 1_301)
        guard case .fail(let error, _) = late.first else {
            Issue.record("expected a failure, got \(late)")
            return
        }
        #expect(error.code == .providerUnavailable && error.code.exitCode == ExitCode.temporaryFailure)
        #expect(error.message.contains("connection refused"))
        #expect(machine.wireState(now: 1_301) == .error)
        // Recovery: the retry at the Retry-After time succeeds.
        #expect(machine.timerFired(now: now + 120).refreshStarts.map(\.1) == [7])
        let recovered = machine.refreshSucceeded(
            Fixture.tokens("access-2", obtainedAt: now + 120),
            generation: 0, now: now + 120)
        #expect(recovered.first == .persistTokens(Fixture.tokens("access-2", obtainedAt: now + 120)))
        #expect(machine.lastError == nil && machine.wireState(now: now + 120) == .active)
        #expect(machine.tokenRequested(ids[2], minTTL: nil, now: now + 121).served.map(\.token) == ["access-2"])
    }

    @Test func backoffJitterStaysInBounds() throws {
        var machine = AccountStateMachine(account: "work", jitter: RefreshJitter(seed: 7))
        _ = machine.restored(Fixture.tokens(obtainedAt: 1_000, lifetime: 300), now: 1_300)
        var now = 1_300.0
        for attempt in 1...12 {
            _ = machine.refreshFailed(.transient(message: "503", retryAfter: nil), generation: 0, now: now)
            guard case .refreshing(_, let next) = machine.state, case .scheduled(let at, .some) = next.phase else {
                Issue.record("expected a scheduled retry, got \(machine.state)")
                return
            }
            let nominal = RefreshBackoff().nominalDelay(afterAttempt: attempt)
            #expect(at - now >= nominal * 0.8 && at - now <= nominal)
            // The one-refresh-per-second cap may defer the first short retries a little further.
            var started = 0
            while started == 0, let wakeUp = machine.nextWakeUp(now: now), wakeUp <= at + 1 {
                now = wakeUp
                started = machine.timerFired(now: now).refreshStarts.count
            }
            #expect(started == 1)
        }
    }

    @Test func waitersGetTheValidTokenOrProviderUnavailableOnTransientFailure() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600), now: 1_000)
        _ = machine.tokenRequested(ids[0], minTTL: 3_000, now: 2_000)  // valid, refresh first
        let failed = machine.refreshFailed(.transient(message: "timeout", retryAfter: nil), generation: 0, now: 2_001)
        #expect(failed.served.map(\.token) == ["access-1"])
        // During the backoff a min_ttl caller is not parked for minutes: it gets the valid token.
        #expect(machine.tokenRequested(ids[1], minTTL: 3_000, now: 2_001.5).served.count == 1)
    }

    @Test func terminalFailureRequiresLoginAndNotifiesExactlyOnce() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 1_000, lifetime: 300), now: 1_000)
        var all = machine.timerFired(now: 1_240)
        all += machine.tokenRequested(ids[0], minTTL: 200, now: 1_241)
        let failed = machine.refreshFailed(.terminal(message: "invalid_grant"), generation: 0, now: 1_242)
        #expect(failed.first == .deleteTokens)
        #expect(failed.failures.map(\.code) == ["login_required"] && failed.failures.first?.to == [ids[0]])
        #expect(failed.notifications.count == 1)
        #expect(failed.notifications.first?.account == "work")
        #expect(failed.notifications.first?.reason.contains("invalid_grant") == true)
        #expect(machine.state == .loginRequired(.refreshRejected("invalid_grant")))
        all += failed
        for step in 0..<20 {
            let now = 1_243 + Double(step) * 10
            all += machine.tokenRequested(Fixture.id(UInt64(10 + step)), minTTL: nil, now: now)
            all += machine.timerFired(now: now)
        }
        #expect(all.notifications.count == 1)
        #expect(all.refreshStarts.count == 1)
        #expect(machine.lastError?.code == .loginRequired)
    }

    @Test func abandonedCallerIsNotAnswered() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 1_000, lifetime: 300), now: 1_000)
        _ = machine.tokenRequested(ids[0], minTTL: nil, now: 1_400)
        _ = machine.tokenRequested(ids[1], minTTL: nil, now: 1_400)
        #expect(machine.requestAbandoned(ids[0]) == [])
        let done = machine.refreshSucceeded(Fixture.tokens("access-2", obtainedAt: 1_401), generation: 0, now: 1_401)
        #expect(done.served.first?.to == [ids[1]])
    }

    @Test func resumeFromSuspendRefreshesAtTheFirstWakeUp() {
        var machine = Fixture.machine(holding: Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600), now: 1_000)
        // The laptop slept for hours; the timer (on a clock that counts suspend) fires on resume.
        let actions = machine.timerFired(now: 50_000)
        #expect(actions.refreshStarts.count == 1)
        #expect(machine.tokenRequested(ids[0], minTTL: nil, now: 50_000.1) == [.waitForRefresh(ids[0])])
    }

    @Test(arguments: [300.0, 3_600.0, 86_400.0])
    func anIdleAccountWakesOnlyToRefresh(lifetime: Double) {
        var machine = AccountStateMachine(account: "work", jitter: RefreshJitter(seed: 3))
        var now = 1_000.0
        _ = machine.restored(Fixture.tokens(obtainedAt: now, lifetime: lifetime), now: now)
        var (wakeUps, refreshes) = (0, 0)
        while refreshes < 5, let wakeUp = machine.nextWakeUp(now: now) {
            now = wakeUp
            wakeUps += 1
            guard let (generation, _) = machine.timerFired(now: now).refreshStarts.first else { continue }
            refreshes += 1
            now += 0.1
            _ = machine.refreshSucceeded(Fixture.tokens(obtainedAt: now, lifetime: lifetime), generation: generation, now: now)
        }
        #expect(refreshes == 5)
        #expect(wakeUps == refreshes, "woke \(wakeUps) times for \(refreshes) refreshes")
    }

    @Test(arguments: [2.0, 5.0, 60.0, 300.0, 3_600.0, 86_400.0])
    func wakeUpsAreNeverInThePast(lifetime: Double) {
        var machine = AccountStateMachine(account: "work", jitter: RefreshJitter(seed: UInt64(lifetime)))
        var now = 1_000.0
        var actions = machine.restored(Fixture.tokens(obtainedAt: now, lifetime: lifetime), now: now)
        var refreshes = 0
        var failNext = true
        for _ in 0..<6_000 {
            for wakeUp in actions.wakeUps { #expect(wakeUp >= now) }
            if let (generation, _) = actions.refreshStarts.first {
                refreshes += 1
                now += 0.1
                // Every other refresh fails once, transiently.
                actions =
                    failNext
                    ? machine.refreshFailed(
                        .transient(message: "503", retryAfter: 600),
                        generation: generation, now: now)
                    : machine.refreshSucceeded(
                        Fixture.tokens(obtainedAt: now, lifetime: lifetime),
                        generation: generation, now: now)
                failNext.toggle()
                continue
            }
            guard let wakeUp = machine.nextWakeUp(now: now) else {
                Issue.record("nothing scheduled in \(machine.state)")
                return
            }
            #expect(wakeUp >= now)
            now = wakeUp
            actions = machine.timerFired(now: now)
        }
        #expect(refreshes >= 2)
    }

    @Test(arguments: [2.0, 5.0, 60.0, 300.0, 3_600.0, 86_400.0])
    func proactiveRefreshStartsInsideTheMarginBeforeExpiry(lifetime: Double) {
        let policy = RefreshPolicy()
        var machine = AccountStateMachine(account: "work", jitter: RefreshJitter(seed: 99))
        var now = 1_000.0
        _ = machine.restored(Fixture.tokens(obtainedAt: now, lifetime: lifetime), now: now)
        var expiry = now + lifetime
        for cycle in 0..<5 {
            var start: (UInt64, Int)?
            for _ in 0..<5_000 where start == nil {
                guard let wakeUp = machine.nextWakeUp(now: now) else { break }
                now = wakeUp
                start = machine.timerFired(now: now).refreshStarts.first
            }
            guard let (generation, attempt) = start else {
                Issue.record("no refresh in cycle \(cycle)")
                return
            }
            #expect(attempt == 1)
            #expect(now < expiry)
            #expect(expiry - now <= policy.margin(lifetime: lifetime) + policy.jitterBound(lifetime: lifetime))
            now += 0.05
            _ = machine.refreshSucceeded(
                Fixture.tokens(obtainedAt: now, lifetime: lifetime),
                generation: generation, now: now)
            expiry = now + lifetime
        }
    }
}
