import Foundation
import Testing

/// A logged-in Linux desktop around one harness, as a browser sees it when it hands a private-use
/// scheme redirect to the desktop: the real `gio open URL` (GLib: GNOME, Firefox) or `xdg-open URL`
/// under `XDG_CURRENT_DESKTOP=GNOME` (Chromium), which launch whatever desktop entry the harness's
/// XDG directories name for the scheme — the one `authctl login` registered.
///
/// The launched `authctl callback` gets only what the desktop passes on: no `--socket`, no
/// AUTHBROKER_SOCKET. It finds the daemon through XDG_RUNTIME_DIR when the harness serves the
/// default socket (`BrokerHarness(defaultSocket: true)`, `start`), else through the `--socket`
/// that `authctl login` wrote into the entry. Its notifications go to a fake
/// `notify-send`, and everything it writes lands in files of the harness root (`launchedOutput`).
struct DesktopSession {
    /// How the URL is handed over.
    enum Opener: String, CustomStringConvertible, CaseIterable {
        case gio = "gio open"
        case xdgOpen = "xdg-open (GNOME)"
        var description: String { rawValue }

        var command: [String] { self == .gio ? ["gio", "open"] : ["xdg-open"] }
        /// The tool's exit status when no application handles the URL: gio's usage-or-failure 2;
        /// xdg-open's "the action failed" 4 (its GNOME branch runs gio open and maps any failure to 4).
        var noHandlerStatus: Int32 { self == .gio ? 2 : 4 }
    }

    let harness: BrokerHarness
    /// What the launched handlers showed with notify-send, one line per notification.
    let notificationLog: String
    private let fakeBin: String
    private let opened = Counter()

    init(_ harness: BrokerHarness) throws {
        self.harness = harness
        (fakeBin, notificationLog) = try Self.fakeNotifySend(in: harness.root)
        for directory in ["system-data", "system-config"] {
            try FileManager.default.createDirectory(atPath: harness.root + "/" + directory, withIntermediateDirectories: true)
        }
    }

    /// A harness serving the default socket, with its daemon and a mock provider, and its desktop.
    static func start(provider configuration: String) async throws -> (DesktopSession, MockProviderProcess) {
        let (harness, provider) = try await BrokerHarness.withDaemon(provider: configuration, defaultSocket: true)
        return (try DesktopSession(harness), provider)
    }

    /// What a desktop session hands the programs it starts: the harness's HOME and XDG directories
    /// (XDG_RUNTIME_DIR leads `authctl callback` to the daemon), empty system XDG_DATA_DIRS and
    /// XDG_CONFIG_DIRS so that only what authctl registered counts, no D-Bus session bus and no
    /// display — GLib launches a desktop entry without either.
    func environment(for opener: Opener) -> [String: String] {
        var environment = harness.environment
        environment["PATH"] = fakeBin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["XDG_DATA_DIRS"] = harness.root + "/system-data"
        environment["XDG_CONFIG_DIRS"] = harness.root + "/system-config"
        if opener == .xdgOpen { environment["XDG_CURRENT_DESKTOP"] = "GNOME" }
        return environment
    }

    /// Hands `url` to the desktop the way a browser does and returns the opener's exit status and
    /// output. The opener returns once the handler is launched, not when it is done: wait for its
    /// effect (`notifications(count:)`, the waiting login's exit).
    func open(_ url: String, with opener: Opener) async throws -> BrokerHarness.Run {
        let name = harness.root + "/desktop-open-\(opened.next())"
        // GLib launches the handler in the opener's process group and returns at once; the test's
        // processes are killed with their group when the leader exits. `setsid -w` gives the opener
        // a group of its own, so the handler outlives it as it does a browser (bounded by its own
        // timeout: authctl callback gives up after 40 s).
        let process = try SpawnedProcess(
            ["setsid", "-w"] + opener.command + [url], environment: environment(for: opener), stdoutPath: name + ".out",
            stderrPath: name + ".err")
        let status = await process.waitForExit(timeout: 20)
        return BrokerHarness.Run(status: status, stdout: process.stdout, stderr: process.stderr, pid: process.pid)
    }

    /// The notifications shown so far, once there are at least `count` (or after `timeout` s).
    func notifications(count: Int, timeout: Double = 20) async -> [String] {
        var shown: [String] = []
        _ = await SpawnedProcess.eventually(timeout: timeout) {
            shown = Self.lines(notificationLog)
            return shown.count >= count
        }
        return shown
    }

    /// Everything the openers and the handlers they launched wrote (they inherit the opener's
    /// stdout and stderr), and every notification.
    var launchedOutput: String {
        let files = (0..<opened.value).flatMap { ["/desktop-open-\($0).out", "/desktop-open-\($0).err"] }
        return (files.map { harness.root + $0 } + [notificationLog])
            .map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }.joined(separator: "\n")
    }

    /// A `notify-send` that appends its arguments to a log, one notification a line; returns the
    /// directory to put first on PATH and the log.
    static func fakeNotifySend(in root: String) throws -> (bin: String, log: String) {
        let bin = root + "/fake-bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let log = root + "/notifications.log"
        let script = "#!/bin/sh\nprintf '%s|' \"$@\" >> '\(log)'\necho >> '\(log)'\n"
        FileManager.default.createFile(
            atPath: bin + "/notify-send", contents: Data(script.utf8), attributes: [.posixPermissions: 0o755])
        return (bin, log)
    }

    private static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Numbers the openers' output files (the session is passed by value; the count is shared).
    private final class Counter: @unchecked Sendable {
        // @unchecked: used only by the one test task that owns the session.
        private(set) var value = 0
        func next() -> Int {
            defer { value += 1 }
            return value
        }
    }
}
