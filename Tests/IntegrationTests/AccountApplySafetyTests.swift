import Foundation
import TestSupport
import Testing

/// `authctl account apply` is all or nothing, with the real daemon and authctl against the mock: a
/// dry run changes nothing, a file with a mistake (or an entry the daemon refuses, an issuer that
/// does not answer) changes nothing and says where it is, a step that fails midway is rolled back
/// and what cannot be undone (a sign-out) is said; accounts the file
/// does not list are removed only with --prune; `-` reads standard input.
@Suite(.serialized) struct AccountApplySafetyTests {
    static func write(_ harness: BrokerHarness, _ entries: [String]) throws -> String {
        let file = harness.root + "/accounts-\(UInt32.random(in: 0...UInt32.max)).json"
        try ("{\"accounts\": [\n" + entries.map { "  " + $0 }.joined(separator: ",\n") + "\n]}\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    static func entry(_ name: String, _ issuer: String, _ extra: String = "") -> String {
        #"{"name": "\#(name)", "issuer": "\#(issuer)", "client_id": "mock-client", "scopes": ["openid", "offline_access"]\#(extra)}"#
    }

    static func states(_ harness: BrokerHarness) async throws -> [String: String] {
        let status = try await harness.authctl(["status", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let accounts = (object?["accounts"] as? [[String: Any]]) ?? []
        return Dictionary(
            uniqueKeysWithValues: accounts.compactMap { account in
                (account["name"] as? String).map { ($0, account["state"] as? String ?? "") }
            })
    }

    @Test(.timeLimit(.minutes(3)))
    func aDryRunPrintsThePlanAndChangesNothing() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        try await harness.addAccount("old", provider: provider)
        try await harness.addAccount("same", provider: provider)
        let token = try await harness.token("work")
        let file = try Self.write(
            harness,
            [
                Self.entry("work", provider.issuer, #", "audience": "api""#), Self.entry("home", provider.issuer),
                Self.entry("same", provider.issuer), Self.entry("old", provider.issuer, #", "browser": "firefox""#),
            ])
        let plan = try await harness.authctl(["account", "apply", "--dry-run", file])
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stdout == "update work (signs out)\nadd home\nunchanged same\nupdate old (no tokens)\n", "\(plan)")
        let pruned = try await harness.authctl([
            "account", "apply", "--dry-run", "--prune", try Self.write(harness, [Self.entry("same", provider.issuer)]),
        ])
        #expect(pruned.stdout == "unchanged same\nremove old\nremove work\n", "\(pruned)")
        let kept = try await harness.authctl([
            "account", "apply", "--dry-run", try Self.write(harness, [Self.entry("same", provider.issuer)]),
        ])
        #expect(kept.stdout == "unchanged same\nunlisted old\nunlisted work\n", "\(kept)")
        #expect(kept.stderr.contains("kept: 'old', 'work'") && kept.stderr.contains("--prune"), "\(kept)")
        #expect(try await Self.states(harness) == ["work": "active", "old": "logged_out", "same": "logged_out"])
        #expect(try await harness.token("work") == token)

        // The same file, applied from standard input.
        let applied = try await Subprocess.run(
            [try BrokerHarness.binary("authctl"), "--socket", harness.socket, "account", "apply", "-"],
            stdin: try String(contentsOfFile: file, encoding: .utf8), environment: harness.environment, directory: harness.root)
        #expect(
            applied.status == 0 && applied.stdout == "signed-out work\nadded home\nunchanged same\nupdated old\n", "\(applied)")
        #expect(
            try await Self.states(harness) == [
                "work": "login_required", "home": "logged_out", "old": "logged_out", "same": "logged_out",
            ])
        #expect(await harness.stopDaemon() == 0)
    }

    @Test(.timeLimit(.minutes(3)))
    func aMistakeInTheFileChangesNothingAndSaysWhere() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        try await harness.addAccount("other", provider: provider)
        let file = try Self.write(
            harness,
            [
                Self.entry("work", provider.issuer),
                #"{"name": "new", "issuer": "\#(provider.issuer)", "client_id": "c", "scope": ["openid"]}"#,
            ])
        let typo = try await harness.authctl(["account", "apply", "--prune", file])
        #expect(typo.status == 64, "\(typo)")
        #expect(typo.stderr.hasPrefix("authctl: \(file):3:"), "\(typo)")
        #expect(typo.stderr.contains("did you mean \"scopes\"?"), "\(typo)")
        let syntax = try await harness.authctl([
            "account", "apply", try Self.write(harness, [Self.entry("work", provider.issuer) + ","]),
        ])
        #expect(syntax.status == 64 && syntax.stderr.contains(":3:1: invalid JSON"), "\(syntax)")
        // Refused by the daemon's check (a redirect host it does not accept): named, nothing changed.
        let refused = try await harness.authctl([
            "account", "apply", "--prune",
            try Self.write(
                harness,
                [
                    Self.entry("work", provider.issuer, #", "browser": "firefox""#),
                    Self.entry("new", provider.issuer, #", "redirect_host": "example.com""#),
                ]),
        ])
        #expect(
            refused.status == 64 && refused.stderr.contains(":3:3: account 'new': The redirect host must be")
                && refused.stderr.contains("Nothing was changed."), "\(refused)")
        // The check runs discovery as the change would: an issuer nothing answers at is refused first.
        let unreachable = try await harness.authctl([
            "account", "apply",
            try Self.write(
                harness,
                [
                    Self.entry("work", provider.issuer, #", "browser": "firefox""#), Self.entry("other", "http://127.0.0.1:9"),
                ]),
        ])
        #expect(
            unreachable.status != 0
                && unreachable.stderr.contains(":3:3: account 'other': Cannot use issuer 'http://127.0.0.1:9'"), "\(unreachable)")
        #expect(unreachable.stderr.contains("Nothing was changed."), "\(unreachable)")
        #expect(try await Self.states(harness) == ["work": "active", "other": "logged_out"])
        #expect(try await AccountUpdateTests.configuration(harness)["browser"] == nil)
        #expect(await harness.stopDaemon() == 0)
    }

    /// Every entry passes the daemon's check (discovery included), so the failure is one only the
    /// change itself meets: loosening a caller policy without its one-time code
    /// (`confirmation_required`; no terminal, no --code). The steps before it are undone.
    @Test(.timeLimit(.minutes(4)))
    func aStepThatFailsIsRolledBackAndASignOutIsSaid() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.signIn("work", provider: provider)
        try await harness.signIn("home", provider: provider)
        let homeToken = try await harness.token("home")
        let (allowed, _) = try CallerPolicyTests.programs(harness)
        #expect(try await harness.authctl(["account", "update", "work", "--allow-exe", allowed]).status == 0)
        let file = try Self.write(
            harness,
            [
                Self.entry("added", provider.issuer),
                Self.entry("home", provider.issuer, #", "browser": "firefox -P home""#),
                Self.entry("work", provider.issuer, #", "browser": "firefox -P work""#),
            ])
        let plan = try await harness.authctl(["account", "apply", "--dry-run", file])
        #expect(plan.stdout == "add added\nupdate home (keeps tokens)\nupdate work (keeps tokens)\n", "\(plan)")
        let failed = try await harness.authctl(["account", "apply", file])
        #expect(failed.status == 77, "\(failed)")
        #expect(failed.stderr.hasPrefix("authctl: apply stopped at account 'work' (\(file):4:3): "), "\(failed)")
        #expect(failed.stderr.contains("rolled back: 'home' has its old configuration again"), "\(failed)")
        #expect(failed.stderr.contains("rolled back: removed the added account 'added'"), "\(failed)")
        #expect(!failed.stderr.contains("not rolled back"), "\(failed)")
        #expect(failed.stdout.isEmpty)
        #expect(try await Self.states(harness) == ["work": "active", "home": "active"])
        #expect(try await AccountUpdateTests.configuration(harness, "home")["browser"] == nil)
        #expect(try await AccountUpdateTests.configuration(harness, "work")["allow_exe"] as? [String] == [allowed])
        #expect(try await harness.token("home") == homeToken)

        // A sign-out done before the failing step cannot be undone: said, not hidden.
        let second = try Self.write(
            harness,
            [
                Self.entry("home", provider.issuer, #", "audience": "api""#),
                Self.entry("work", provider.issuer, #", "audience": "api""#),
            ])
        let signedOut = try await harness.authctl(["account", "apply", second])
        #expect(signedOut.status == 77, "\(signedOut)")
        #expect(signedOut.stderr.contains("apply stopped at account 'work'"), "\(signedOut)")
        #expect(signedOut.stderr.contains("rolled back: 'home' has its old configuration again"), "\(signedOut)")
        #expect(
            signedOut.stderr.contains(
                "not rolled back: 'home' stays signed out (its tokens were deleted); sign in again with: authctl login home"),
            "\(signedOut)")
        #expect(try await AccountUpdateTests.configuration(harness, "home")["audience"] == nil)
        #expect(try await Self.states(harness) == ["work": "active", "home": "login_required"])
        #expect(await harness.stopDaemon() == 0)
    }
}
