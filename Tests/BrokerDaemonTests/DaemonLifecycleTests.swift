import Foundation
import TestSupport
import Testing

/// The real `authbrokerd` started, asked, reloaded and stopped, with the real `authctl`.
@Suite struct DaemonLifecycleTests {
    @Test func servesPingAndStatusThenStopsCleanlyOnSIGTERM() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let key = try harness.makeKey(at: harness.root + "/test.key")
        try harness.seedVault(keyFile: key, account: "work")
        let notify = try NotifyListener()
        let daemon = try harness.launch(harness.daemonArguments + ["--key-file", key], notify: notify)
        let ready = try #require(await notify.wait(for: "READY=1"), "no READY=1; log:\n\(daemon.log)")
        #expect(ready.last?.contains("STATUS=Serving 1 account on \(harness.socket)") == true)

        var info = stat()
        #expect(lstat(harness.socket, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let ping = try await harness.authctl(["ping"])
        #expect(ping.status == 0, "\(ping.stderr)")
        #expect(ping.stdout.contains("(pid \(daemon.pid)) is running on \(harness.socket)"))

        let status = try await harness.authctl(["status", "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let accounts = try #require(json?["accounts"] as? [[String: Any]])
        #expect(accounts.count == 1)
        let first = try #require(accounts.first)
        #expect(Set(first.keys) == ["name", "state", "expires_at", "last_refresh", "last_error", "subject", "scope"])
        #expect(first["name"] as? String == "work")

        #expect(try await daemon.stop() == 0, "log:\n\(daemon.log)")
        #expect(await notify.wait(for: "STOPPING=1", timeout: 5) != nil)
        #expect(!FileManager.default.fileExists(atPath: harness.socket))
        #expect(daemon.log.contains("info: stopped"))
        let after = try await harness.authctl(["ping"])
        #expect(after.status == 69)
    }

    @Test func secondInstanceOnTheSameSocketIsRefused() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let notify = try NotifyListener()
        let first = try harness.launch(notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(first.log)")
        let second = try harness.launch(name: "second")
        #expect(try await second.waitForExit() == 1)
        #expect(second.log.contains("authbrokerd is already running on \(harness.socket)"))
        // The refused one must not have taken the socket away.
        #expect(try await harness.authctl(["ping"]).status == 0)
        #expect(try await first.stop() == 0)
    }

    @Test func secondInstanceOnTheSameStateDirectoryIsRefused() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let notify = try NotifyListener()
        let first = try harness.launch(notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(first.log)")
        // Another socket, the same token database: both would refresh the same refresh tokens.
        let otherSocket = harness.root + "/other/authbroker.sock"
        let second = try harness.launch(["--socket", otherSocket, "--state-dir", harness.stateDirectory], name: "second")
        #expect(try await second.waitForExit() == 1)
        #expect(second.log.contains("another authbrokerd (pid \(first.pid)) already uses the state directory"), "\(second.log)")
        #expect(!FileManager.default.fileExists(atPath: otherSocket))
        #expect(try await harness.authctl(["ping"]).status == 0)
        #expect(try await first.stop() == 0)
        // The lock dies with its holder: a new daemon starts at once.
        let third = try harness.launch(notify: notify, name: "third")
        #expect(await notify.wait(for: "READY=1") != nil, "log:\n\(third.log)")
        #expect(try await third.stop() == 0)
    }

    @Test func restartsAfterSIGKILLOverTheStaleSocketAndStopsOnSIGINT() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let notify = try NotifyListener()
        let killed = try harness.launch(notify: notify, name: "killed")
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(killed.log)")
        killed.signal(SIGKILL)
        #expect(try await killed.waitForExit() == 128 + SIGKILL)
        #expect(FileManager.default.fileExists(atPath: harness.socket), "a SIGKILLed daemon leaves its socket")

        let restarted = try harness.launch(notify: notify, name: "restarted")
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(restarted.log)")
        #expect(try await harness.authctl(["ping"]).status == 0)
        restarted.signal(SIGINT)
        #expect(try await restarted.waitForExit() == 0)
        #expect(await notify.wait(for: "STOPPING=1", timeout: 5) != nil)
        #expect(!FileManager.default.fileExists(atPath: harness.socket))
    }

    @Test func defaultPathsComeFromTheXDGEnvironment() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let notify = try NotifyListener()
        let daemon = try harness.launch([], notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let socket = harness.runtime + "/authbroker/authbroker.sock"
        #expect(FileManager.default.fileExists(atPath: socket))
        #expect(FileManager.default.fileExists(atPath: harness.root + "/xdg-state/authbroker/tokens.db"))
        #expect(FileManager.default.fileExists(atPath: harness.defaultKeyFile))
        let ping = try await harness.run([try DaemonHarness.binary("authctl"), "ping"])
        #expect(ping.status == 0, "\(ping.stderr)")
        #expect(try await daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    @Test func sighupReloadsAndTellsSystemd() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let notify = try NotifyListener()
        let daemon = try harness.launch(notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        daemon.signal(SIGHUP)
        let reload = try #require(await notify.wait(for: "READY=1", timeout: 10), "log:\n\(daemon.log)")
        #expect(reload.first?.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") == true)
        #expect(daemon.log.contains("reloaded: outbound HTTPS client rebuilt"))
        #expect(try await harness.authctl(["ping"]).status == 0)
        #expect(try await daemon.stop() == 0)
    }

    @Test func watchdogKeepAlivesWhenSystemdAsks() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let notify = try NotifyListener()
        let daemon = try harness.launch(environment: ["WATCHDOG_USEC": "200000"], notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        #expect(await notify.wait(for: "WATCHDOG=1", timeout: 10) != nil)
        #expect(await notify.wait(for: "WATCHDOG=1", timeout: 10) != nil)
        #expect(try await daemon.stop() == 0)
    }

    @Test func usageErrorsAreOneLineAndExit64() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let daemon = try DaemonHarness.binary("authbrokerd")
        let bogus = try await harness.run([daemon, "--bogus"])
        #expect(bogus.status == 64)
        #expect(bogus.stderr == "authbrokerd: unknown option '--bogus' for 'authbrokerd'; see: authbrokerd --help\n")
        let level = try await harness.run([daemon, "--log-level", "loud"])
        #expect(level.status == 64)
        let version = try await harness.run([daemon, "--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("authbrokerd "))
        let help = try await harness.run([daemon, "--help"])
        #expect(help.status == 0 && help.stdout.contains("--state-dir DIR"))
    }
}
