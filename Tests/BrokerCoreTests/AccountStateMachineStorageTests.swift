import BrokerCore
import BrokerCrypto
import BrokerProtocol
import Testing

/// Failed saves (disk full): the tokens stay in memory and in use, the save is retried with
/// backoff, `storage_failed` is the last error, and the user is notified once per episode.
@Suite struct AccountStateMachineStorageTests {
    typealias Machine = AccountStateMachine
    let id = Fixture.id(1)
    let fresh = Fixture.tokens("access-2", obtainedAt: 2_000, lifetime: 3_600, refresh: "refresh-2")

    /// A machine that refreshed at 2 000 and got `fresh`, whose pre-commit failed.
    func refreshedButUnsaved() -> Machine {
        var machine = Fixture.machine()
        // 100 s left of 1 100: inside the margin, so the restore refreshes at once.
        #expect(machine.restored(Fixture.tokens(obtainedAt: 1_000, lifetime: 1_100), now: 2_000).refreshStarts.count == 1)
        #expect(machine.refreshSucceeded(fresh, generation: 0, now: 2_000).first == .persistTokens(fresh))
        return machine
    }

    @Test func aFailedSaveKeepsServingTheTokensAndRetriesWithBackoff() {
        var machine = refreshedButUnsaved()
        let failed = machine.tokensNotStored(fresh, reason: "database or disk is full", now: 2_000)
        #expect(failed.notifications.count == 1)
        #expect(failed.notifications.first?.reason.contains("database or disk is full") == true)
        #expect(failed.wakeUps == [2_001])
        #expect(machine.lastError?.code == .storageFailed)
        #expect(machine.lastError?.message.contains("in memory") == true)
        #expect(machine.unsaved?.failures == 1)
        #expect(machine.wireState(now: 2_000) == .active)
        #expect(machine.tokenRequested(id, minTTL: nil, now: 2_000.5) == [.serveToken(fresh, to: [id])])

        #expect(machine.timerFired(now: 2_001).first == .persistTokens(fresh))
        let again = machine.tokensNotStored(fresh, reason: "database or disk is full", now: 2_001)
        #expect(again.notifications.isEmpty, "notified twice in one episode")
        #expect(again.wakeUps == [2_003])
        #expect(machine.unsaved?.failures == 2)
    }

    @Test func retriesStayAtMostThirtySecondsApart() {
        var machine = refreshedButUnsaved()
        var now = 2_000.0
        for _ in 1...12 {
            _ = machine.tokensNotStored(fresh, reason: "full", now: now)
            let retryAt = machine.unsaved?.retryAt ?? .infinity
            #expect(retryAt - now <= RefreshBackoff.maximumSaveRetryDelay)
            now = retryAt
            #expect(machine.timerFired(now: now).contains(.persistTokens(fresh)))
        }
    }

    @Test func aSuccessfulSaveEndsTheEpisode() {
        var machine = refreshedButUnsaved()
        _ = machine.tokensNotStored(fresh, reason: "full", now: 2_000)
        _ = machine.timerFired(now: 2_001)
        _ = machine.tokensStored(fresh, now: 2_001.2)
        #expect(machine.unsaved == nil)
        #expect(machine.lastError == nil)
        #expect(!machine.timerFired(now: 2_100).contains(.persistTokens(fresh)))
        // A later failure is a new episode: notified again.
        #expect(machine.tokensNotStored(fresh, reason: "full", now: 2_200).notifications.count == 1)
    }

    @Test func aRetryUnderWayIsNotStartedTwice() {
        var machine = refreshedButUnsaved()
        _ = machine.tokensNotStored(fresh, reason: "full", now: 2_000)
        #expect(machine.timerFired(now: 2_001).contains(.persistTokens(fresh)))
        #expect(machine.unsaved?.retryAt == nil)
        #expect(!machine.timerFired(now: 2_031).contains(.persistTokens(fresh)))
    }

    @Test func answersAboutTokensThatAreNoLongerCurrentChangeNothing() {
        var machine = refreshedButUnsaved()
        let old = Fixture.tokens(obtainedAt: 1_000, lifetime: 1_100)
        #expect(machine.tokensNotStored(old, reason: "full", now: 2_000) == [])
        #expect(machine.unsaved == nil && machine.lastError == nil)
        _ = machine.tokensNotStored(fresh, reason: "full", now: 2_000)
        #expect(machine.tokensStored(old, now: 2_000.5) == [])
        #expect(machine.unsaved?.failures == 1, "a late save of the old tokens hid the unsaved new ones")
    }

    @Test func newTokensSavedWhileUnsavedEndTheEpisode() {
        var machine = refreshedButUnsaved()
        _ = machine.tokensNotStored(fresh, reason: "full", now: 2_000)
        // The next refresh lands and its commit succeeds.
        _ = machine.tokenRequested(id, minTTL: 3_600, now: 2_400)
        let newer = Fixture.tokens("access-3", obtainedAt: 2_401, lifetime: 3_600, refresh: "refresh-3")
        #expect(machine.refreshSucceeded(newer, generation: 0, now: 2_401).first == .persistTokens(newer))
        _ = machine.tokensStored(newer, now: 2_401)
        #expect(machine.unsaved == nil && machine.lastError == nil)
    }

    @Test func aLogoutLeavesNothingToSave() {
        var machine = refreshedButUnsaved()
        _ = machine.tokensNotStored(fresh, reason: "full", now: 2_000)
        #expect(machine.logout(now: 2_000.5).contains(.deleteTokens))
        let later = machine.timerFired(now: 2_002)
        #expect(!later.contains { if case .persistTokens = $0 { true } else { false } })
        #expect(machine.unsaved == nil || machine.nextWakeUp(now: 2_002) == nil)
    }
}
