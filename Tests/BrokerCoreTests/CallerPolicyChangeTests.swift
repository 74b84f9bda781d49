import BrokerProtocol
import Testing

@testable import BrokerCore

/// Which caller-policy changes need the one-time code (`CallerPolicy.widens`), and the codes of
/// policy changes (`PolicyChangeConfirmations`): bound to the proposed policy, 5 tries, used once.
@Suite struct CallerPolicyChangeTests {
    static let git = CallerPolicy(allowedExecutables: ["/usr/bin/git", "/usr/lib/git-core/git-remote-https"])
    static let account = AccountKey(owner: 1000, name: "work")

    @Test func onlyTighteningIsFree() {
        let none: CallerPolicy? = nil
        #expect(!CallerPolicy.widens(from: none, to: Self.git), "a first policy narrows who is served")
        #expect(CallerPolicy.widens(from: Self.git, to: none), "removing the policy")
        #expect(
            CallerPolicy.widens(from: Self.git, to: CallerPolicy(allowedExecutables: Self.git.allowedExecutables + ["/tmp/x"])))
        #expect(CallerPolicy.widens(from: Self.git, to: CallerPolicy(allowedExecutables: ["/usr/bin/curl"])))
        #expect(!CallerPolicy.widens(from: Self.git, to: CallerPolicy(allowedExecutables: ["/usr/bin/git"])), "fewer entries")
        #expect(
            !CallerPolicy.widens(from: Self.git, to: CallerPolicy(allowedExecutables: Self.git.allowedExecutables.reversed())))
        #expect(
            !CallerPolicy.widens(from: Self.git, to: CallerPolicy(allowedExecutables: Self.git.allowedExecutables, confirm: true))
        )
        let confirmOnly = CallerPolicy(allowedExecutables: [], confirm: true)
        #expect(CallerPolicy.widens(from: confirmOnly, to: none), "--no-confirm")
        #expect(!CallerPolicy.widens(from: confirmOnly, to: Self.git.with(confirm: true)), "a list added to --confirm")
        #expect(CallerPolicy.widens(from: confirmOnly, to: Self.git), "confirm turned off, even with a list")
        #expect(CallerPolicy.widens(from: Self.git.with(confirm: true), to: CallerPolicy(allowedExecutables: [], confirm: true)))
    }

    @Test func aPolicyCodeIsBoundToItsChangeTriedFiveTimesAndUsedOnce() {
        let codes = PolicyChangeConfirmations()
        let wider = CallerPolicy(allowedExecutables: Self.git.allowedExecutables + ["/tmp/x"])
        #expect(codes.check(Self.account, proposal: wider, code: "2222-2222") == .notIssued)
        let code = codes.issue(Self.account, proposal: wider)
        let wrong = code == "2222-2222" ? "3333-3333" : "2222-2222"
        #expect(codes.check(Self.account, proposal: nil, code: code) == .otherChange, "the code was sent for another change")
        for remaining in (1...4).reversed() {
            #expect(codes.check(Self.account, proposal: wider, code: wrong) == .wrong(remaining: remaining))
        }
        #expect(codes.check(Self.account, proposal: wider, code: wrong) == .burnt)
        #expect(codes.check(Self.account, proposal: wider, code: code) == .notIssued, "burnt: the right code no longer works")

        let fresh = codes.issue(Self.account, proposal: wider)
        #expect(codes.check(Self.account, proposal: wider, code: fresh) == .accepted)
        #expect(codes.check(Self.account, proposal: wider, code: fresh) == .notIssued, "used once")
        let removed = codes.issue(Self.account, proposal: wider)
        codes.forget(Self.account)
        #expect(codes.check(Self.account, proposal: wider, code: removed) == .notIssued, "the account was removed")
    }

    @Test func codesAreFromTheAlphabetAndDiffer() {
        let drawn = (0..<64).map { _ in OneTimeCode().shown }
        #expect(drawn.allSatisfy { ConfirmationCode.normalized($0).map(ConfirmationCode.grouped) == $0 })
        #expect(Set(drawn).count == drawn.count)
        #expect(ConfirmationCode.normalized("abcd efgh") == "ABCDEFGH")
        #expect(ConfirmationCode.normalized("ABCD-EFG0") == nil, "0 is not in the alphabet")
        #expect(ConfirmationCode.normalized("ABCD-EFG") == nil)
    }
}

extension CallerPolicy {
    fileprivate func with(confirm: Bool) -> CallerPolicy {
        CallerPolicy(allowedExecutables: allowedExecutables, confirm: confirm)
    }
}
