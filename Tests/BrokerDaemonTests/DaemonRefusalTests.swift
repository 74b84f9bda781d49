import Foundation
import TestSupport
import Testing

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
        #expect(
            daemon.log.contains(
                "cannot use the state directory '\(harness.stateDirectory)': '\(harness.stateDirectory)' is not a directory"),
            "\(daemon.log)")
    }

    /// A shared (1777) or foreign state directory would let another user swap tokens.db.
    @Test func aWorldWritableStateDirectoryIsRefusedSayingWhatToRun() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
        chmod(harness.stateDirectory, 0o1777)
        let daemon = try harness.launch()
        #expect(try await daemon.waitForExit() == 1)
        #expect(daemon.log.contains("has mode 1777; run: chmod 700 '\(harness.stateDirectory)'"), "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory + "/tokens.db"))
    }

    @Test func aDatabaseReadableByOthersIsRefusedNotTightened() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        try FileManager.default.createDirectory(atPath: harness.stateDirectory, withIntermediateDirectories: true)
        let database = harness.stateDirectory + "/tokens.db"
        #expect(FileManager.default.createFile(atPath: database, contents: Data()))
        chmod(database, 0o644)
        let daemon = try harness.launch()
        #expect(try await daemon.waitForExit() == 1)
        #expect(
            daemon.log.contains("permissions 0644 for '\(database)' are too open; run: chmod 600 '\(database)'"), "\(daemon.log)")
        var info = stat()
        #expect(stat(database, &info) == 0 && info.st_mode & 0o777 == 0o644)
    }
}
