import BrokerProtocol
import Foundation
import Synchronization
import Testing

@testable import BrokerCore

/// `--confirm` bookkeeping: waits released by a decision, decisions remembered for the boot,
/// timeouts, bounds, and an account's removal. The timeout's sleep is a gate the test opens.
@Suite struct CallerApprovalsTests {
    static let work = CallerApprovals.Key(account: AccountKey(owner: 1000, name: "work"), executable: "/usr/bin/curl")

    /// A sleep that returns when `open` is called (the timeout "elapses"), never by itself.
    final class Gate: Sendable {
        private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])
        let count = Atomic<Int>(0)
        var sleep: @Sendable (Duration) async throws -> Void {
            { _ in
                await withCheckedContinuation { continuation in
                    self.waiting.withLock { $0.append(continuation) }
                    self.count.add(1, ordering: .relaxed)
                }
            }
        }
        func open() {
            waiting.withLock { list in
                list.forEach { $0.resume() }
                list.removeAll()
            }
        }
    }

    static func untilWaiting(_ approvals: CallerApprovals, _ count: Int) async {
        while approvals.pending(owner: 1000).first?.waiting ?? 0 < count { await Task.yield() }
    }

    @Test func anApprovalReleasesEveryWaiterAndIsRememberedForTheBoot() async {
        let approvals = CallerApprovals()
        let gate = Gate()
        let notified = Gate()  // only its counter is used
        let notify: @Sendable (String) -> Void = { _ in notified.count.add(1, ordering: .relaxed) }
        async let first = approvals.wait(Self.work, pid: 7, timeout: .seconds(60), sleep: gate.sleep, firstWaiter: notify)
        async let second = approvals.wait(Self.work, pid: 8, timeout: .seconds(60), sleep: gate.sleep, firstWaiter: notify)
        await Self.untilWaiting(approvals, 2)
        #expect(
            approvals.pending(owner: 1000) == [PendingApproval(account: "work", executable: "/usr/bin/curl", pid: 7, waiting: 2)])
        #expect(approvals.pending(owner: 1001).isEmpty)
        #expect(approvals.decide(Self.work, approve: true) == 2)
        #expect(await first == .approved)
        #expect(await second == .approved)
        #expect(notified.count.load(ordering: .relaxed) == 1, "one notification per waiting pair")
        #expect(approvals.decision(Self.work) == true)
        #expect(await approvals.wait(Self.work, pid: 9, timeout: .seconds(60), sleep: gate.sleep) { _ in } == .approved)
        gate.open()
    }

    @Test func aWaitWithoutADecisionTimesOutAndLeavesNothingPending() async {
        let approvals = CallerApprovals()
        let gate = Gate()
        async let outcome = approvals.wait(Self.work, pid: 7, timeout: .seconds(60), sleep: gate.sleep) { _ in }
        await Self.untilWaiting(approvals, 1)
        while gate.count.load(ordering: .relaxed) < 1 { await Task.yield() }
        gate.open()
        #expect(await outcome == .timedOut)
        #expect(approvals.pending(owner: 1000).isEmpty)
        #expect(approvals.decision(Self.work) == nil)
    }

    @Test func aDenialAndAnAccountsRemovalRefuseTheWaiters() async {
        let approvals = CallerApprovals()
        let gate = Gate()
        approvals.decide(Self.work, approve: false)
        #expect(await approvals.wait(Self.work, pid: 7, timeout: .seconds(60), sleep: gate.sleep) { _ in } == .denied)
        let other = CallerApprovals.Key(account: Self.work.account, executable: "/usr/bin/wget")
        async let removed = approvals.wait(other, pid: 8, timeout: .seconds(60), sleep: gate.sleep) { _ in }
        while approvals.waitingExecutables(Self.work.account) != ["/usr/bin/wget"] { await Task.yield() }
        approvals.forget(Self.work.account)
        #expect(await removed == .denied)
        #expect(approvals.decision(Self.work) == nil, "a new account of the same name starts afresh")
        gate.open()
    }

    @Test func pendingPairsAndWaitersPerPairAreBounded() async {
        let approvals = CallerApprovals()
        let gate = Gate()
        await withTaskGroup(of: ApprovalOutcome.self) { group in
            for _ in 0..<CallerApprovals.maximumWaitersPerKey {
                group.addTask { await approvals.wait(Self.work, pid: 7, timeout: .seconds(60), sleep: gate.sleep) { _ in } }
            }
            await Self.untilWaiting(approvals, CallerApprovals.maximumWaitersPerKey)
            #expect(await approvals.wait(Self.work, pid: 7, timeout: .seconds(60), sleep: gate.sleep) { _ in } == .overloaded)
            approvals.decide(Self.work, approve: true)
            for await outcome in group { #expect(outcome == .approved) }
        }
        gate.open()
    }

    /// The code the first waiter's notification got; nothing else hands it out.
    final class Shown: Sendable {
        let code = Mutex<String?>(nil)
        var notify: @Sendable (String) -> Void { { code in self.code.withLock { $0 = code } } }

        /// The code notified once it is not `previous`: the waiter is registered before its
        /// notification runs, so a count of waiters alone may meet the old code (or none).
        func next(after previous: String?) async -> String {
            while true {
                if let shown = code.withLock({ $0 }), shown != previous { return shown }
                await Task.yield()
            }
        }
    }

    @Test func onlyTheNotifiedCodeApprovesAndFiveWrongOnesEndTheWait() async {
        let approvals = CallerApprovals()
        let gate = Gate()
        let shown = Shown()
        async let outcome = approvals.wait(Self.work, pid: 7, timeout: .seconds(60), sleep: gate.sleep, firstWaiter: shown.notify)
        await Self.untilWaiting(approvals, 1)
        let code = await shown.next(after: nil)
        #expect(ConfirmationCode.normalized(code) != nil && code.count == 9, "ABCD-EFGH: \(code)")
        let wrong = code == "2222-2222" ? "3333-3333" : "2222-2222"
        for remaining in (1...4).reversed() {
            #expect(approvals.approve(Self.work, code: wrong) == .wrong(remaining: remaining))
        }
        #expect(approvals.decision(Self.work) == nil, "wrong codes decide nothing")
        let fifth = approvals.approve(Self.work, code: wrong)
        #expect(fifth == .burnt(released: 1))
        if fifth != .burnt(released: 1) { gate.open() }  // fail rather than wait forever
        #expect(await outcome == .abandoned)
        #expect(approvals.approve(Self.work, code: code) == .notWaiting, "a burnt code is gone with its wait")
        #expect(approvals.decision(Self.work) == nil)

        // The next wait has a code of its own; the right one (any case, dashes optional) approves.
        async let again = approvals.wait(Self.work, pid: 8, timeout: .seconds(60), sleep: gate.sleep, firstWaiter: shown.notify)
        await Self.untilWaiting(approvals, 1)
        let next = await shown.next(after: code)
        #expect(next != code)
        #expect(
            approvals.approve(Self.work, code: next.lowercased().replacingOccurrences(of: "-", with: ""))
                == .approved(released: 1))
        #expect(await again == .approved)
        #expect(approvals.decision(Self.work) == true)
        gate.open()
    }
}
