import BrokerProtocol
import Testing

@testable import AuthctlCommands

/// `ApplyPlan`: the order `apply` runs its steps in (what cannot be undone last) and the lines it
/// prints for the plan and for the result.
@Suite struct ApplyPlanTests {
    static func step(_ name: String, _ action: ApplyPlan.Action) -> ApplyPlan.Step {
        ApplyPlan.Step(name: name, action: action)
    }

    static let plan = ApplyPlan(steps: [
        step("gone", .remove), step("out", .update(signsOut: true, tokens: true)), step("same", .unchanged),
        step("new", .add), step("keep", .update(signsOut: false, tokens: true)),
        step("bare", .update(signsOut: false, tokens: false)),
        step("other", .unlisted), step("second", .add),
    ])

    @Test func whatCannotBeUndoneRunsLast() {
        #expect(Self.plan.runOrder.map(\.name) == ["new", "second", "keep", "bare", "out", "gone"])
    }

    @Test func thePlanAndTheResultArePrintedInTheFilesOrder() {
        #expect(
            Self.plan.lines(done: false) == [
                "remove gone", "update out (signs out)", "unchanged same", "add new", "update keep (keeps tokens)",
                "update bare (no tokens)", "unlisted other", "add second",
            ])
        #expect(
            Self.plan.lines(done: true, signedOut: ["out"]) == [
                "removed gone", "signed-out out", "unchanged same", "added new", "updated keep", "updated bare",
                "unlisted other", "added second",
            ])
        #expect(ApplyPlan(steps: []).lines(done: false).isEmpty)
    }
}
