import BrokerProtocol
import Testing

@testable import BrokerCore

/// `--allow-exe` for adapters, without I/O: authctl is matched by the program that runs it —
/// through at most `maximumAncestors` ancestors, passing shells only.
@Suite struct CallerPolicyAdapterTests {
    static let authctl = "/usr/bin/authctl"
    static let policy = CallerPolicy(allowedExecutables: ["/usr/bin/git", "/usr/lib/git-core/git-remote-https"])

    @Test func onlyThisInstallationsAuthctlIsLookedPastAndOnlyWhenItIsNotAllowedItself() {
        #expect(Self.policy.looksPastAdapter(Self.authctl, adapter: Self.authctl))
        #expect(!Self.policy.looksPastAdapter("/tmp/copy/authctl", adapter: Self.authctl))
        #expect(!Self.policy.looksPastAdapter(Self.authctl, adapter: nil))
        #expect(!CallerPolicy(allowedExecutables: [Self.authctl]).looksPastAdapter(Self.authctl, adapter: Self.authctl))
        #expect(!CallerPolicy(allowedExecutables: [], confirm: true).looksPastAdapter(Self.authctl, adapter: Self.authctl))
    }

    @Test func theFirstAncestorThatIsAllowedOrNotAShellSpeaks() {
        let policy = Self.policy
        // git's `!authctl git-credential` helper: authctl ← sh -c ← git-remote-https ← git.
        #expect(
            policy.speaker(among: ["/usr/bin/dash", "/usr/lib/git-core/git-remote-https", "/usr/bin/git"])
                == "/usr/lib/git-core/git-remote-https")
        #expect(policy.speaker(among: ["/usr/bin/git"]) == "/usr/bin/git")
        // A non-shell that is not allowed decides, even with an allowed program above it.
        #expect(policy.speaker(among: ["/usr/bin/python3.11", "/usr/bin/git"]) == "/usr/bin/python3.11")
        // Three shells deep: the walk stops at the third, which is not allowed.
        #expect(policy.speaker(among: ["/usr/bin/dash", "/usr/bin/bash", "/usr/bin/dash", "/usr/bin/git"]) == "/usr/bin/dash")
        // The parent is gone or is pid 1: nothing to attribute.
        #expect(policy.speaker(among: [String]()) == "unknown")
        #expect(policy.speaker(among: ["unknown"]) == "unknown")
        // A shell on the list is allowed like any program.
        #expect(
            CallerPolicy(allowedExecutables: ["/usr/bin/dash"]).speaker(among: ["/usr/bin/dash", "/usr/bin/git"])
                == "/usr/bin/dash")
    }

    @Test func anAdapterIsServedForAnAllowedProgramAndRefusedNamingBoth() throws {
        #expect(Self.policy.verdict(executable: Self.authctl, via: "/usr/bin/git", account: "work", approval: nil) == .serve)
        guard
            case .refuse(let refusal) = Self.policy.verdict(
                executable: Self.authctl, via: "/usr/bin/bash", account: "work", approval: nil)
        else {
            Issue.record("served")
            return
        }
        #expect(refusal.code == .callerNotAllowed)
        #expect(refusal.message.contains("not /usr/bin/authctl run by /usr/bin/bash"), "\(refusal.message)")
        #expect(
            refusal.message.hasSuffix(
                "authctl account update work --allow-exe /usr/bin/git --allow-exe /usr/lib/git-core/git-remote-https --allow-exe /usr/bin/bash"
            ))
        // Nothing to name: the suggestion is authctl itself.
        guard
            case .refuse(let unknown) = Self.policy.verdict(
                executable: Self.authctl, via: "unknown", account: "work", approval: nil)
        else {
            Issue.record("served")
            return
        }
        #expect(unknown.message.contains("run by unknown") && unknown.message.hasSuffix("--allow-exe /usr/bin/authctl"))
        // `via` never stands in for a program that is not an adapter's caller, nor with no list.
        #expect(Self.policy.verdict(executable: "/usr/bin/curl", account: "work", approval: nil) != .serve)
        #expect(
            CallerPolicy(allowedExecutables: [], confirm: true).verdict(
                executable: Self.authctl, via: "/usr/bin/git", account: "work", approval: nil) == .askApproval)
    }
}
