import BrokerProtocol
import FoundationEssentials
import Synchronization
import Testing

@testable import BrokerCore

/// The login registry without the actor: ownership, joining, ending once, long-poll waiters,
/// expiry of ended logins and the shutdown cancel, with times passed in.
@Suite struct LoginRegistryTests {
    /// A flow that records its cancels; `exchanging`: its code is at the token endpoint.
    final class RecordingFlow: LoginFlow {
        let loginID: String
        let expiresAt = Date(timeIntervalSince1970: 10_000)
        let exchanging: Bool
        let cancels = Mutex(0)

        init(_ loginID: String, exchanging: Bool = false) {
            self.loginID = loginID
            self.exchanging = exchanging
        }

        var outcome: Result<LoginResult, OIDCError>? { nil }
        func result() async -> Result<LoginResult, OIDCError> { .failure(.cancelled) }
        func cancel() { cancels.withLock { $0 += 1 } }
        func cancelUnlessExchanging() -> Bool {
            guard !exchanging else { return false }
            cancel()
            return true
        }
    }

    static let alice = AccountKey(owner: 1001, name: "work")
    static let bob = AccountKey(owner: 1002, name: "work")

    static func record(_ flow: RecordingFlow, _ key: AccountKey = alice, task: UInt64? = nil) -> LoginRecord {
        let started = LoginStarted(
            loginID: flow.loginID, authorizationURL: "https://idp.test/authorize?x=\(flow.loginID)", expiresAt: "")
        return LoginRecord(
            account: key, login: BrokerLogin(flow: flow, authorizationURL: started.authorizationURL), started: started, task: task
        )
    }

    @Test func aSecondStartJoinsThePendingLoginUntilItEnds() {
        var registry = LoginRegistry()
        registry.add(Self.record(RecordingFlow("L1")), id: "L1", now: 100)
        #expect(registry.joinable("L1")?.loginID == "L1")
        #expect(registry.joinable(nil) == nil, "joined a login the account's machine does not wait for")
        #expect(registry.joinable("L2") == nil)
        _ = registry.end("L1", outcome: .failed, error: nil, subject: nil, now: 110)
        #expect(registry.joinable("L1") == nil, "joined a login that has ended")
    }

    /// `authctl login NAME --new-subject` that joins a pending login lets it sign in another user;
    /// an ended login is not changed.
    @Test func aJoinWithNewSubjectAllowsAnotherUserOnlyWhilePending() {
        var registry = LoginRegistry()
        registry.add(Self.record(RecordingFlow("L1")), id: "L1", now: 100)
        registry.add(Self.record(RecordingFlow("L2")), id: "L2", now: 100)
        #expect(registry.pending("L1")?.allowsNewSubject == false)
        registry.allowNewSubject(login: "L1")
        #expect(registry.pending("L1")?.allowsNewSubject == true)
        #expect(registry.pending("L2")?.allowsNewSubject == false)
        _ = registry.end("L2", outcome: .failed, error: nil, subject: nil, now: 110)
        registry.allowNewSubject(login: "L2")
        registry.allowNewSubject(login: "L3")
        #expect(registry.pending("L2") == nil && registry.pending("L3") == nil)
    }

    @Test func anotherOwnersLoginIsAnsweredLikeNone() {
        var registry = LoginRegistry()
        registry.add(Self.record(RecordingFlow("L1"), Self.alice), id: "L1", now: 100)
        #expect(registry.status("L1", owner: Self.alice.owner)?.outcome == .pending)
        #expect(registry.status("L1", owner: Self.bob.owner) == nil)
        #expect(registry.status("nope", owner: Self.alice.owner) == nil)
    }

    @Test func aLoginEndsOnceAndHandsBackItsWaiters() {
        var registry = LoginRegistry()
        registry.add(Self.record(RecordingFlow("L1")), id: "L1", now: 100)
        registry.addWaiter(7, login: "L1")
        registry.addWaiter(8, login: "L1")
        let ended = registry.end("L1", outcome: .succeeded, error: nil, subject: "sub-1", now: 120)
        #expect(ended?.waiters == [7, 8])
        #expect(ended?.status == LoginStatus(loginID: "L1", account: "work", outcome: .succeeded, subject: "sub-1"))
        #expect(registry.pending("L1") == nil)
        let again = registry.end(
            "L1", outcome: .failed, error: WireError(code: .loginRequired, message: "x"), subject: nil, now: 130)
        #expect(again == nil, "a second ending overwrote the first")
        #expect(registry.status("L1", owner: Self.alice.owner)?.outcome == .succeeded)
    }

    @Test func aWaiterThatStopsWaitingIsNotHandedBackAtTheEnd() {
        var registry = LoginRegistry()
        registry.add(Self.record(RecordingFlow("L1")), id: "L1", now: 100)
        registry.addWaiter(7, login: "L1")
        registry.addWaiter(8, login: "L1")
        #expect(registry.removeWaiter(7, login: "L1")?.outcome == .pending)
        #expect(registry.removeWaiter(9, login: "gone") == nil)
        #expect(registry.end("L1", outcome: .timedOut, error: nil, subject: nil, now: 120)?.waiters == [8])
    }

    @Test func endedLoginsAreForgottenAfterTheirLifetimeWhenTheNextStarts() {
        var registry = LoginRegistry()
        registry.add(Self.record(RecordingFlow("old")), id: "old", now: 0)
        registry.add(Self.record(RecordingFlow("open")), id: "open", now: 0)
        _ = registry.end("old", outcome: .failed, error: nil, subject: nil, now: 10)
        registry.add(Self.record(RecordingFlow("L2")), id: "L2", now: 9.5 + LoginRegistry.recordLifetime)
        #expect(registry.status("old", owner: Self.alice.owner) != nil, "forgotten before its lifetime passed")
        registry.add(Self.record(RecordingFlow("L3")), id: "L3", now: 10 + LoginRegistry.recordLifetime)
        #expect(registry.status("old", owner: Self.alice.owner) == nil)
        #expect(registry.status("open", owner: Self.alice.owner)?.outcome == .pending, "a pending login expired by age")
    }

    @Test func shutdownCancelsPendingLoginsAndDrainsThoseBeingExchanged() {
        var registry = LoginRegistry()
        let waiting = RecordingFlow("waiting")
        let exchanging = RecordingFlow("exchanging", exchanging: true)
        let ended = RecordingFlow("ended", exchanging: true)
        registry.add(Self.record(waiting, task: 1), id: "waiting", now: 0)
        registry.add(Self.record(exchanging, task: 2), id: "exchanging", now: 0)
        registry.add(Self.record(ended, task: 3), id: "ended", now: 0)
        _ = registry.end("ended", outcome: .succeeded, error: nil, subject: nil, now: 1)
        #expect(registry.cancelUnlessExchanging() == [2])
        #expect(waiting.cancels.withLock { $0 } == 1)
        #expect(exchanging.cancels.withLock { $0 } == 0)
    }

    @Test func theStartInProgressIsKeptPerAccountUntilCleared() async throws {
        var registry = LoginRegistry()
        let started = LoginStarted(loginID: "L1", authorizationURL: "https://idp.test/a", expiresAt: "")
        let task = Task<Result<LoginStarted, WireError>, Never> { .success(started) }
        registry.setStart(task, for: Self.alice)
        #expect(registry.start(for: Self.bob) == nil, "another owner's account joined this start")
        #expect(try await registry.start(for: Self.alice)?.value.get() == started)
        registry.setStart(nil, for: Self.alice)
        #expect(registry.start(for: Self.alice) == nil)
    }
}
