import Foundation
import Testing

/// A restricted socket keeps the main socket's peer check (docs/security.md, "Restricted sockets"):
/// a user the daemon does not serve is refused at connect, and a user it does serve (`--allow-uid`)
/// gets no token of the socket's creator through it.
@Suite(.serialized) struct RestrictedSocketUserTests {
    @Test(.enabled(if: SystemOwnershipTests.canRun, .init(rawValue: SystemOwnershipTests.why)), .timeLimit(.minutes(2)))
    func otherUsersCannotUseARestrictedSocket() async throws {
        let harness = try BrokerHarness()
        let stranger = try await OtherUser.make("abtest1", authctlIn: harness.root)
        let allowed = try await OtherUser.make("abtest2", authctlIn: harness.root)
        let provider = try await MockProviderProcess(directory: harness.root)
        try await harness.startDaemon(["--allow-uid", allowed.name])
        try await harness.signIn("work", provider: provider)
        let path = try await harness.addRestrictedSocket("shared", ["--account", "work"])
        let token = try await harness.token("work")
        // The file mode is only the first fence: open it up to test the daemon's own checks.
        OtherUser.openSocket(of: harness)
        chmod(harness.runtime + "/restricted", 0o711)
        chmod(harness.runtime + "/restricted/\(getuid())", 0o711)
        chmod(path, 0o666)

        let refused = try await harness.authctl(["token", "work"], through: path, as: stranger)
        #expect(refused.status != 0 && refused.stderr.contains("serves only its own user"), "\(refused)")
        let notTheirs = try await harness.authctl(["token", "work"], through: path, as: allowed)
        #expect(notTheirs.status != 0 && notTheirs.stderr.contains("is restricted"), "\(notTheirs)")
        for run in [refused, notTheirs] { #expect(!run.stdout.contains(token) && !run.stderr.contains(token)) }
        #expect(await harness.stopDaemon() == 0)
    }
}
