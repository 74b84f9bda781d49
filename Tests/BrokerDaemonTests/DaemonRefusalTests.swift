import Foundation
import Testing
import TestSupport

/// Start-up refusals: each must exit non-zero with a message that says what is wrong and where.
@Suite struct DaemonRefusalTests {
    @Test func aKeyThatDoesNotOpenTheDatabaseIsRefusedNamingBothFiles() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let original = try harness.makeKey(at: harness.root + "/original.key")
        try harness.seedVault(keyFile: original, account: "work")
        let other = try harness.makeKey(at: harness.root + "/other.key")
        let daemon = try harness.launch(harness.daemonArguments + ["--key-file", other])
        #expect(try await daemon.waitForExit() == 1)
        #expect(daemon.log.contains(other), "\(daemon.log)")
        #expect(daemon.log.contains(harness.database), "\(daemon.log)")
        #expect(daemon.log.contains("does not open the database"))
        #expect(!FileManager.default.fileExists(atPath: harness.socket))
    }

    @Test func aKeyFileReadableByOthersIsRefused() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let key = try harness.makeKey(at: harness.root + "/loose.key")
        chmod(key, 0o644)
        let daemon = try harness.launch(harness.daemonArguments, environment: ["AUTHBROKER_KEY_FILE": key])
        #expect(try await daemon.waitForExit() == 1)
        #expect(daemon.log.contains("permissions 0644 for '\(key)' are too open"), "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: harness.socket))
    }

    @Test func aLooseSocketDirectoryIsRefused() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let shared = harness.root + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        chmod(shared, 0o755)
        let daemon = try harness.launch(["--socket", shared + "/s.sock", "--state-dir", harness.stateDirectory])
        #expect(try await daemon.waitForExit() == 1)
        #expect(daemon.log.contains("run: chmod 700 '\(shared)'"), "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: shared + "/s.sock"))
    }

    @Test func aStateDirectoryThatIsAFileIsRefused() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        #expect(FileManager.default.createFile(atPath: harness.stateDirectory, contents: Data()))
        let daemon = try harness.launch()
        #expect(try await daemon.waitForExit() == 1)
        #expect(daemon.log.contains("cannot use the state directory '\(harness.stateDirectory)': not a directory"))
    }
}
