import BrokerCore
import BrokerCrypto
import BrokerProtocol
import Testing

/// Logins, logout, configuration changes and start-up: the transitions around the refresh cycle.
@Suite struct AccountStateMachineTests {
    typealias Machine = AccountStateMachine
    let login = Machine.PendingLogin(loginID: "L1", authorizationURL: "https://idp.test/authorize?x=1", deadline: 1_300)

    @Test func loggedOutAccountAsksForALogin() {
        var machine = Fixture.machine()
        let actions = machine.tokenRequested(Fixture.id(1), minTTL: nil, now: 1_000)
        guard case .fail(let error, let to) = actions.first, actions.count == 1 else {
            Issue.record("expected one failure, got \(actions)")
            return
        }
        #expect(error.code == .loginRequired && to == [Fixture.id(1)])
        #expect(error.message.contains("authctl login work"))
        #expect(machine.wireState(now: 1_000) == .loggedOut)
    }

    @Test func loginStartedThenSucceeded() {
        var machine = Fixture.machine()
        #expect(machine.loginStarted(login, now: 1_000) == [.scheduleWakeUp(at: login.deadline)])
        #expect(machine.wireState(now: 1_000) == .pendingLogin)

        let pending = machine.tokenRequested(Fixture.id(1), minTTL: nil, now: 1_001)
        #expect(pending == [.fail(machine.pendingError, to: [Fixture.id(1)])])
        #expect(machine.pendingError.code == .loginPending)
        #expect(machine.pendingError.authorizationURL == login.authorizationURL)

        let tokens = Fixture.tokens(obtainedAt: 1_010, lifetime: 3_600)
        let actions = machine.loginSucceeded(loginID: "L1", tokens: tokens, now: 1_010)
        #expect(actions == [.persistTokens(tokens), .scheduleWakeUp(at: 4_250)])  // 1_010 + 3_600 − 360
        #expect(machine.state == .active(tokens, checkAt: 4_250))
        #expect(machine.generation == 1)
        #expect(machine.pendingLogin == nil)
        #expect(machine.wireState(now: 1_010) == .active)
        #expect(machine.tokenRequested(Fixture.id(2), minTTL: nil, now: 1_011).served.map(\.token) == ["access-1"])
    }

    @Test func failedLoginWithoutTokensRequiresALogin() {
        var machine = Fixture.machine()
        _ = machine.loginStarted(login, now: 1_000)
        #expect(machine.loginFailed(loginID: "L1", reason: "access_denied", now: 1_005) == [.cancelWakeUp])
        #expect(machine.state == .loginRequired(.loginFailed("access_denied")))
        #expect(machine.lastError?.code == .loginRequired)
        #expect(machine.lastError?.message.contains("access_denied") == true)
        let failures = machine.tokenRequested(Fixture.id(1), minTTL: nil, now: 1_006).failures
        #expect(failures.map(\.code) == ["login_required"])
    }

    @Test func reloginKeepsServingAndAFailedReloginKeepsTheTokens() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)
        var machine = Fixture.machine(holding: tokens, now: 1_000)
        _ = machine.loginStarted(login, now: 1_100)
        #expect(machine.wireState(now: 1_100) == .pendingLogin)
        #expect(machine.tokenRequested(Fixture.id(1), minTTL: nil, now: 1_101).served.map(\.token) == ["access-1"])
        _ = machine.loginFailed(loginID: "L1", reason: "access_denied", now: 1_102)
        #expect(machine.state == .active(tokens, checkAt: 4_240))
        #expect(machine.wireState(now: 1_102) == .active)
        #expect(machine.generation == 0)
    }

    @Test func loginTimesOutThroughTheTimerWithExit75() {
        var machine = Fixture.machine()
        _ = machine.loginStarted(login, now: 1_000)
        #expect(machine.timerFired(now: 1_030) == [.scheduleWakeUp(at: login.deadline)], "an early wake-up re-arms")
        let actions = machine.timerFired(now: 1_300)
        guard case .cancelLogin(let id, let reason) = actions.first else {
            Issue.record("expected cancelLogin, got \(actions)")
            return
        }
        #expect(id == "L1" && reason.code.exitCode == ExitCode.temporaryFailure)
        #expect(actions.dropFirst() == [.cancelWakeUp])
        #expect(machine.state == .loginRequired(.loginTimedOut))
        #expect(machine.pendingLogin == nil)
        // A late report of the same timeout changes nothing.
        #expect(machine.loginTimedOut(loginID: "L1", now: 1_301) == [])
    }

    /// Issue 29: a re-login nobody finished left `provider_unavailable` on an account whose
    /// tokens were fine; the timeout now leaves it active with no error.
    @Test func timedOutReloginLeavesAnActiveAccountActiveWithoutAnError() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)
        var machine = Fixture.machine(holding: tokens, now: 1_000)
        _ = machine.loginStarted(login, now: 1_100)
        let actions = machine.timerFired(now: 1_400)
        #expect(actions.contains { if case .cancelLogin = $0 { true } else { false } })
        #expect(machine.pendingLogin == nil)
        #expect(machine.wireState(now: 1_400) == .active)
        #expect(machine.lastError == nil)
        #expect(machine.tokenRequested(Fixture.id(1), minTTL: nil, now: 1_401).served.map(\.token) == ["access-1"])
    }

    /// `authctl login --cancel` / Ctrl-C: the login ends (cancelled, `conflict`), the account keeps
    /// its state and tokens, and no error is left behind.
    @Test func cancelledReloginLeavesTheAccountAsItWas() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)
        var machine = Fixture.machine(holding: tokens, now: 1_000)
        _ = machine.loginStarted(login, now: 1_100)
        let actions = machine.loginCancelled(because: "the user cancelled it", now: 1_110)
        guard case .cancelLogin(let id, let reason) = actions.first else {
            Issue.record("expected cancelLogin, got \(actions)")
            return
        }
        #expect(id == "L1" && reason.code == .conflict)
        #expect(machine.pendingLogin == nil)
        #expect(machine.wireState(now: 1_110) == .active)
        #expect(machine.lastError == nil)
        #expect(
            machine.loginCancelled(because: "again", now: 1_111).allSatisfy { if case .cancelLogin = $0 { false } else { true } })
    }

    @Test func loginThatIsNoLongerPendingOnlyRevokesItsTokens() {
        var machine = Fixture.machine()
        let tokens = Fixture.tokens()
        #expect(machine.loginSucceeded(loginID: "L9", tokens: tokens, now: 1_000) == [.revoke(tokens)])
        #expect(machine.state == .loggedOut && machine.generation == 0)
    }

    @Test func aNewLoginSupersedesThePendingOne() {
        var machine = Fixture.machine()
        _ = machine.loginStarted(login, now: 1_000)
        let second = Machine.PendingLogin(loginID: "L2", authorizationURL: "https://idp.test/a2", deadline: 1_400)
        let actions = machine.loginStarted(second, now: 1_010)
        guard case .cancelLogin("L1", let reason) = actions.first else {
            Issue.record("expected L1 cancelled, got \(actions)")
            return
        }
        #expect(reason.code == .conflict)
        #expect(machine.pendingLogin == second)
        #expect(machine.loginSucceeded(loginID: "L1", tokens: Fixture.tokens(), now: 1_011).count == 1)
    }

    @Test func logoutFromActiveRevokesAndDeletes() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)
        var machine = Fixture.machine(holding: tokens, now: 1_000)
        #expect(machine.logout(now: 1_100) == [.revoke(tokens), .deleteTokens, .cancelWakeUp])
        #expect(machine.state == .loggedOut && machine.generation == 1)
        #expect(
            machine.tokenRequested(
                Fixture.id(1), minTTL: nil,
                now: 1_101
            ).failures.map(\.code) == ["login_required"])
    }

    @Test func logoutCancelsAPendingLogin() {
        var machine = Fixture.machine()
        _ = machine.loginStarted(login, now: 1_000)
        let actions = machine.logout(now: 1_001)
        #expect(actions.count == 3)
        guard case .cancelLogin("L1", _) = actions.first else {
            Issue.record("expected cancelLogin, got \(actions)")
            return
        }
        #expect(Array(actions.dropFirst()) == [.deleteTokens, .cancelWakeUp])
        #expect(machine.loginSucceeded(loginID: "L1", tokens: Fixture.tokens(), now: 1_002).count == 1)
        #expect(machine.state == .loggedOut)
    }

    @Test func securityRelevantConfigurationChangeVoidsTheTokens() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)
        var machine = Fixture.machine(holding: tokens, now: 1_000)
        #expect(machine.configurationChanged(securityRelevant: false, now: 1_100) == [])
        #expect(machine.state == .active(tokens, checkAt: 4_240) && machine.generation == 0)
        #expect(machine.configurationChanged(securityRelevant: true, now: 1_100) == [.deleteTokens, .cancelWakeUp])
        #expect(machine.state == .loginRequired(.configurationChanged) && machine.generation == 1)
    }

    @Test func configurationChangeOfALoggedOutAccountKeepsItLoggedOut() {
        var machine = Fixture.machine()
        #expect(machine.configurationChanged(securityRelevant: true, now: 1_000) == [])
        #expect(machine.state == .loggedOut && machine.generation == 1)
    }

    @Test func restoreNothingIsLoggedOut() {
        var machine = Fixture.machine()
        #expect(machine.restored(nil, now: 1_000) == [])
        #expect(machine.state == .loggedOut)
    }

    @Test func restoreValidTokenServesWithoutNetwork() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)
        var machine = Fixture.machine()
        #expect(machine.restored(tokens, now: 2_000) == [.scheduleWakeUp(at: 4_240)])
        #expect(machine.state == .active(tokens, checkAt: 4_240))
        #expect(
            machine.tokenRequested(
                Fixture.id(1), minTTL: nil,
                now: 2_001) == [.serveToken(tokens, to: [Fixture.id(1)])])
    }

    @Test(arguments: [4_300.0, 5_000.0])  // inside the margin, and expired
    func restoreTokenThatNeedsRefreshRefreshesAtOnce(now: Double) {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 3_600)
        var machine = Fixture.machine()
        let actions = machine.restored(tokens, now: now)
        #expect(actions == [.startRefresh(refreshToken: Secret("refresh-1"), generation: 0, attempt: 1)])
        #expect(machine.state == .refreshing(tokens, .init(number: 1, phase: .inFlight(startedAt: now))))
        #expect(machine.wireState(now: now) == .refreshing)
    }

    @Test func restoreExpiredTokenWithoutRefreshTokenRequiresLogin() {
        var machine = Fixture.machine()
        let actions = machine.restored(Fixture.tokens(obtainedAt: 1_000, lifetime: 300, refresh: nil), now: 2_000)
        #expect(actions == [])
        #expect(machine.state == .loginRequired(.expired))
        #expect(
            machine.tokenRequested(
                Fixture.id(1), minTTL: nil,
                now: 2_001
            ).failures.map(\.code) == ["login_required"])
    }

    @Test func tokenWithoutRefreshTokenExpiresIntoLoginRequired() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: 300, refresh: nil)
        var machine = Fixture.machine(holding: tokens, now: 1_000)
        #expect(machine.state == .active(tokens, checkAt: 1_300))
        #expect(machine.timerFired(now: 1_300) == [.cancelWakeUp])
        #expect(machine.state == .loginRequired(.expired))
        #expect(machine.timerFired(now: 1_330).notifications.isEmpty)
    }

    @Test func tokenThatNeverExpiresNeedsNoTimer() {
        let tokens = Fixture.tokens(obtainedAt: 1_000, lifetime: nil, refresh: nil)
        var machine = Fixture.machine()
        #expect(machine.restored(tokens, now: 1_000) == [])
        #expect(machine.nextWakeUp(now: 1_000) == nil)
        #expect(machine.tokenRequested(Fixture.id(1), minTTL: 600, now: 900_000).served.count == 1)
    }

    @Test func noSecretInActionsOrStateDescriptions() {
        var machine = Fixture.machine()
        var actions = machine.restored(Fixture.tokens(obtainedAt: 1_000, lifetime: 300), now: 2_000)
        actions += machine.refreshSucceeded(Fixture.tokens("access-2", obtainedAt: 2_000), generation: 0, now: 2_000)
        actions += machine.tokenRequested(Fixture.id(1), minTTL: nil, now: 2_001)
        actions += machine.logout(now: 2_002)
        let text = "\(actions) \(machine) \(String(reflecting: actions))"
        #expect(actions.count > 4)
        for secret in ["access-1", "access-2", "refresh-1"] { #expect(!text.contains(secret)) }
    }
}

extension AccountStateMachine {
    /// The error a caller gets while the test's login is pending.
    fileprivate var pendingError: WireError {
        WireError(
            code: .loginPending,
            message: "A login for 'work' is pending: finish it in the browser (authorization_url), "
                + "or run: authctl login work",
            authorizationURL: pendingLogin?.authorizationURL)
    }
}
