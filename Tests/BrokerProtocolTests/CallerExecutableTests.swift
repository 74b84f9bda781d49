import BrokerProtocol
import Testing

/// `--allow-exe` paths: absolute, normalised (as `/proc/PID/exe` names a program), bounded.
@Suite struct CallerExecutableTests {
    @Test func absoluteNormalisedPathsAreAccepted() {
        #expect(CallerExecutable.problem(with: ["/usr/bin/git", "/usr/lib/git-core/git-remote-https"]) == nil)
        #expect(CallerExecutable.problem(with: []) == nil)
    }

    @Test(arguments: [
        ("git", "absolute"), ("", "absolute"), ("/usr//bin/git", "normalised"), ("/usr/bin/../bin/git", "normalised"),
        ("/usr/./bin/git", "normalised"), ("/usr/bin/", "normalised"), ("/", "normalised"),
        ("/usr/bin/git\nexe=/usr/bin/ssh", "control"), ("/usr/bin/git (deleted)", "deleted"),
        ("/usr/bin/git (not the file at this path)", "not the file"), ("/usr/bin/git (in another namespace)", "namespace"),
        ("/usr/bin/git (namespace unknown)", "namespace"),
    ])
    func otherPathsAreRefusedWithTheReason(_ path: String, _ reason: String) {
        #expect(CallerExecutable.problem(with: [path])?.contains(reason) == true, "\(path)")
    }

    @Test func theListAndEachPathAreBounded() {
        let many = (0...CallerExecutable.maximumAllowed).map { "/usr/bin/p\($0)" }
        #expect(CallerExecutable.problem(with: Array(many.dropLast())) == nil)
        #expect(CallerExecutable.problem(with: many)?.contains("at most 32") == true)
        let long = "/" + String(repeating: "a", count: CallerExecutable.maximumLength)
        #expect(CallerExecutable.problem(with: [long])?.contains("longer") == true)
    }

    @Test func matchingIsExactAndFailsClosedForUnknownOrDeletedPrograms() {
        let allowed = ["/usr/bin/git"]
        #expect(CallerExecutable.matches("/usr/bin/git", allowed: allowed))
        #expect(!CallerExecutable.matches("/usr/bin/gitk", allowed: allowed))
        #expect(!CallerExecutable.matches("/usr/bin/git (deleted)", allowed: allowed))
        #expect(!CallerExecutable.matches("/usr/bin/git (deleted)", allowed: ["/usr/bin/git (deleted)"]))
        #expect(!CallerExecutable.matches("unknown", allowed: allowed + ["unknown"]))
        // The daemon's marks for a file that is not the one at its path, or another namespace.
        for suffix in CallerExecutable.undeterminedSuffixes {
            #expect(!CallerExecutable.matches("/usr/bin/git" + suffix, allowed: allowed + ["/usr/bin/git" + suffix]), "\(suffix)")
        }
    }

    /// The front and the full CLI it runs are one program for the policy: authctl-full is named
    /// as the authctl beside it; nothing else is renamed.
    @Test func authctlFullIsNamedAsTheAuthctlBesideIt() {
        #expect(CallerExecutable.policyName(of: "/usr/local/bin/authctl-full") == "/usr/local/bin/authctl")
        #expect(CallerExecutable.policyName(of: "/usr/local/bin/authctl") == "/usr/local/bin/authctl")
        #expect(CallerExecutable.policyName(of: "/usr/bin/git") == "/usr/bin/git")
        #expect(CallerExecutable.policyName(of: "/opt/my-authctl-fuller") == "/opt/my-authctl-fuller")
        #expect(CallerExecutable.policyName(of: "/usr/bin/authctl-full (deleted)") == "/usr/bin/authctl-full (deleted)")
        #expect(CallerExecutable.matches(CallerExecutable.policyName(of: "/usr/bin/authctl-full"), allowed: ["/usr/bin/authctl"]))
    }
}
