import Synchronization
import Testing

@testable import BrokerCore

/// What the notify hook asks its runner to start, without a process: BrokerCore only says what to
/// run (the spawn itself: BrokerProcessesTests' `HookProcessTests`).
@Suite struct NotifyHookTests {
    /// Records each start instead of spawning; `notifySend` is what its PATH search would find.
    final class RecordingRunner: HookRunner {
        let notifySend: String?
        let started = Mutex<[(argv: [String], environment: [String: String])]>([])

        init(notifySend: String? = nil) { self.notifySend = notifySend }

        func notifySendPath(environment: [String: String]) -> String? { notifySend }

        func start(_ argv: [String], environment: [String: String], finished: @escaping @Sendable (Int32) -> Void) -> Bool {
            started.withLock { $0.append((argv, environment)) }
            finished(0)
            return true
        }

        var only: (argv: [String], environment: [String: String])? {
            started.withLock { $0.count == 1 ? $0[0] : nil }
        }
    }

    static let key = AccountKey(owner: 1000, name: "work")
    /// The daemon's environment, with a stale AUTHBROKER_URL that a login without a URL must not pass on.
    static let environment = ["PATH": "/usr/bin:/bin", "AUTHBROKER_URL": "https://stale.example/"]

    func hook(_ runner: RecordingRunner?, command: String? = "notify-me") -> NotifyHook {
        NotifyHook(command: command, environment: Self.environment, logger: LogCapture().logger, runner: runner)
    }

    @Test func everyEventSetsTheCommonVariablesAndItsOwn() throws {
        let login = RecordingRunner()
        hook(login).notify(.init(account: "work", reason: "the refresh token was rejected", url: nil), owner: 1000)
        let loginRun = try #require(login.only)
        #expect(loginRun.argv == ["/bin/sh", "-c", "notify-me"])
        #expect(loginRun.environment["AUTHBROKER_EVENT"] == "login_required")
        #expect(loginRun.environment["AUTHBROKER_ACCOUNT"] == "work" && loginRun.environment["AUTHBROKER_OWNER_UID"] == "1000")
        #expect(loginRun.environment["AUTHBROKER_REASON"] == "the refresh token was rejected")
        #expect(loginRun.environment["AUTHBROKER_URL"] == nil, "no pending login: no URL, not the inherited one")
        #expect(loginRun.environment["PATH"] == "/usr/bin:/bin")

        let approval = RecordingRunner()
        hook(approval).approvalNeeded(account: Self.key, executable: "/usr/bin/git", pid: 42, code: "123456")
        let approvalRun = try #require(approval.only)
        #expect(approvalRun.environment["AUTHBROKER_EVENT"] == "approval_needed")
        #expect(approvalRun.environment["AUTHBROKER_OWNER_UID"] == "1000")
        #expect(approvalRun.environment["AUTHBROKER_EXE"] == "/usr/bin/git" && approvalRun.environment["AUTHBROKER_PID"] == "42")
        #expect(approvalRun.environment["AUTHBROKER_APPROVAL_CODE"] == "123456")

        let change = RecordingRunner()
        hook(change).policyChange(
            account: Self.key, to: CallerPolicy(allowedExecutables: []), changed: ["allow_exe"],
            caller: ChangeRequester(pid: 7, executable: "/usr/bin/authctl"), code: "654321")
        let changeRun = try #require(change.only)
        #expect(changeRun.environment["AUTHBROKER_EVENT"] == "policy_change")
        #expect(changeRun.environment["AUTHBROKER_ACCOUNT"] == "work")
        #expect(changeRun.environment["AUTHBROKER_CHANGED"] == "allow_exe" && changeRun.environment["AUTHBROKER_PID"] == "7")
        #expect(changeRun.environment["AUTHBROKER_APPROVAL_CODE"] == "654321")
    }

    @Test func withoutACommandNotifySendShowsTheNoteAndWithNeitherNothingStarts() throws {
        let desktop = RecordingRunner(notifySend: "/usr/bin/notify-send")
        hook(desktop, command: nil).notify(.init(account: "work", reason: "expired", url: nil), owner: 1000)
        let shown = try #require(desktop.only)
        #expect(shown.argv.prefix(3) == ["/usr/bin/notify-send", "--app-name=authbroker", "authbroker: work needs a login"])

        let none = RecordingRunner()
        hook(none, command: nil).notify(.init(account: "work", reason: "expired", url: nil), owner: 1000)
        #expect(none.started.withLock { $0.isEmpty })
    }
}
