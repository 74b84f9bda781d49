import BrokerCore
import BrokerProtocol
import Foundation
import TestSupport
import Testing

@testable import BrokerDaemon

@Suite struct DaemonOptionsTests {
    let environment = [
        "HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/7", "XDG_STATE_HOME": "/xdg/state",
    ]

    private func options(_ arguments: [String], _ environment: [String: String]) throws -> DaemonOptions {
        guard case .run(let options) = try DaemonOptions.parse(arguments, environment: environment, uid: 7) else {
            throw UsageError("not a run command")
        }
        return options
    }

    @Test func defaultsFollowXDG() throws {
        let parsed = try options([], environment)
        #expect(parsed.socketPath == "/run/user/7/authbroker/authbroker.sock")
        #expect(parsed.stateDirectory == "/xdg/state/authbroker")
        #expect(parsed.databasePath == "/xdg/state/authbroker/tokens.db")
        #expect(parsed.logLevel == .info)
        #expect(parsed.keyFile == nil && parsed.passphraseFile == nil && parsed.caFile == nil)
        #expect(parsed.allowedUIDs.isEmpty)
        let noXDG = try options([], ["HOME": "/home/u", "XDG_STATE_HOME": "relative"])
        #expect(noXDG.stateDirectory == "/home/u/.local/state/authbroker")
        #expect(noXDG.socketPath == "/tmp/authbroker-7/authbroker.sock")
    }

    @Test func flagBeatsEnvironmentBeatsDefault() throws {
        let env = environment.merging([
            "AUTHBROKER_SOCKET": "/env/s.sock", "AUTHBROKER_STATE_DIR": "/env/state", "AUTHBROKER_KEY_FILE": "/env/key",
            "AUTHBROKER_CA_FILE": "/env/ca.pem", "AUTHBROKER_LOG_LEVEL": "warning",
            "AUTHBROKER_NOTIFY_COMMAND": "env-notify", "AUTHBROKER_PASSPHRASE_FILE": "/env/pass",
        ]) { $1 }
        let fromEnvironment = try options([], env)
        #expect(fromEnvironment.socketPath == "/env/s.sock")
        #expect(fromEnvironment.stateDirectory == "/env/state")
        #expect(fromEnvironment.keyFile == "/env/key")
        #expect(fromEnvironment.passphraseFile == "/env/pass")
        #expect(fromEnvironment.caFile == "/env/ca.pem")
        #expect(fromEnvironment.logLevel == .warning)
        #expect(fromEnvironment.notifyCommand == "env-notify")
        let fromFlags = try options(
            [
                "--socket", "/f/s.sock", "--state-dir=/f/state", "--key-file", "/f/key", "--ca-file", "/f/ca.pem",
                "--log-level", "debug", "--notify-command", "notify-send hi", "--allow-uid", "1001", "--allow-uid", "root",
                "--passphrase-file", "/f/pass",
            ], env)
        #expect(fromFlags.socketPath == "/f/s.sock")
        #expect(fromFlags.stateDirectory == "/f/state")
        #expect(fromFlags.keyFile == "/f/key")
        #expect(fromFlags.passphraseFile == "/f/pass")
        #expect(fromFlags.caFile == "/f/ca.pem")
        #expect(fromFlags.logLevel == .debug)
        #expect(fromFlags.notifyCommand == "notify-send hi")
        #expect(fromFlags.allowedUIDs == [1001, 0])
    }

    /// At most 60 s: authctl's token timeout (`CallerApproval.clientTimeout`) must outlast it.
    @Test func theApprovalTimeoutIsOneToSixtySeconds() throws {
        #expect(try options([], environment).approvalTimeout == 60)
        #expect(try options(["--approval-timeout", "5"], environment).approvalTimeout == 5)
        #expect(try options([], environment.merging(["AUTHBROKER_APPROVAL_TIMEOUT": "7"]) { $1 }).approvalTimeout == 7)
        #expect(try options([], environment).narrowedRefreshLimit == DaemonOptions.NarrowedRefreshLimit())
        let limit = try options(["--narrowed-refresh-limit", "2000,600"], environment).narrowedRefreshLimit
        #expect(limit.burst == 2000 && limit.perMinute == 600)
        let fromEnvironment = try options([], environment.merging(["AUTHBROKER_NARROWED_REFRESH_LIMIT": "3,1"]) { $1 })
        #expect(fromEnvironment.narrowedRefreshLimit.burst == 3 && fromEnvironment.narrowedRefreshLimit.perMinute == 1)
    }

    @Test func helpVersionAndUsageErrors() throws {
        #expect(try DaemonOptions.parse(["--help"], environment: environment) == .help)
        #expect(try DaemonOptions.parse(["-h"], environment: environment) == .help)
        #expect(try DaemonOptions.parse(["--version"], environment: environment) == .version)
        let bad: [[String]] = [
            ["--log-level", "verbose"], ["--allow-uid", "no-such-user-xyz"], ["extra"], ["--socket"], ["--socket", ""],
            ["--state-dir", "/a", "--state-dir", "/b"], ["--nope"], ["--approval-timeout", "0"],
            ["--approval-timeout", "61"], ["--approval-timeout", "5s"], ["--narrowed-refresh-limit", "10"],
            ["--narrowed-refresh-limit", "0,6"], ["--narrowed-refresh-limit", "10,6,1"], ["--narrowed-refresh-limit", "10,"],
        ]
        for arguments in bad {
            #expect(throws: UsageError.self, "\(arguments)") {
                try DaemonOptions.parse(arguments, environment: environment)
            }
        }
        #expect(throws: UsageError.self) { try DaemonOptions.parse([], environment: [:], uid: 4_000_000_000) }
    }
}

@Suite struct LogOutputTests {
    @Test func plainAndJournalFormats() {
        #expect(LogOutput.format(.info, "ready", journal: false) == "info: ready\n")
        #expect(LogOutput.format(.warning, "hm", journal: false) == "warning: hm\n")
        #expect(LogOutput.format(.error, "bad", journal: true) == "<3>bad\n")
        #expect(LogOutput.format(.debug, "x", journal: true) == "<7>x\n")
        #expect(LogOutput.format(.info, "y", journal: true) == "<6>y\n")
    }

    @Test func writesLinesAtTheCurrentLevelOnly() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let output = LogOutput(level: .warning, journal: false, fd: fds[1])
        output.logger.info("hidden")
        output.logger.warning("shown", ["account": "work"])
        output.currentLevel = .debug
        output.logger.debug("now shown")
        close(fds[1])
        var bytes = [UInt8](repeating: 0, count: 1024)
        let count = read(fds[0], &bytes, bytes.count)
        #expect(String(decoding: bytes[0..<max(0, count)], as: UTF8.self) == "warning: shown account=work\ndebug: now shown\n")
    }

    @Test func journalOnlyWhenTheStreamIsOurs() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        var info = stat()
        try #require(fstat(fds[1], &info) == 0)
        #expect(LogOutput.isJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"], fd: fds[1]))
        #expect(!LogOutput.isJournal(environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino + 1)"], fd: fds[1]))
        #expect(!LogOutput.isJournal(environment: ["JOURNAL_STREAM": "garbage"], fd: fds[1]))
        #expect(!LogOutput.isJournal(environment: [:], fd: fds[1]))
    }
}

@Suite struct SystemdNotifierTests {
    @Test func sendsDatagramsToAnAbstractSocket() throws {
        let listener = try NotifyListener()
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address]))
        #expect(notifier.send("READY=1\nSTATUS=hello"))
        #expect(listener.receive(timeout: 10) == "READY=1\nSTATUS=hello")
    }

    @Test func sendsDatagramsToAPathSocket() throws {
        let directory = try TemporaryDirectory(prefix: "abn")
        defer { directory.remove() }
        let path = directory.path + "/notify"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        try #require(withUnixAddress(path) { bind(fd, $0, $1) } == 0)
        let notifier = try #require(SystemdNotifier(environment: ["NOTIFY_SOCKET": path]))
        #expect(notifier.send("STOPPING=1"))
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = recv(fd, &bytes, bytes.count, Int32(MSG_DONTWAIT))
        #expect(String(decoding: bytes[0..<max(0, count)], as: UTF8.self) == "STOPPING=1")
    }

    @Test func absentOrInvalidNotifySocketMeansNoNotifier() {
        #expect(SystemdNotifier(environment: [:]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative"]) == nil)
        #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)]) == nil)
    }

    @Test func watchdogIntervalIsHalfThePeriodForUs() {
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"], processID: 9) == .seconds(15))
        #expect(
            SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "2000", "WATCHDOG_PID": "9"], processID: 9)
                == .milliseconds(1))
        #expect(
            SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "2000", "WATCHDOG_PID": "8"], processID: 9) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "0"], processID: 9) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: [:], processID: 9) == nil)
    }
}
