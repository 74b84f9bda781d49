import Foundation
import TestSupport
import Testing

@testable import AuthctlCommands

/// `DesktopHandler` against the real desktop tools (xdg-utils, GLib's gio, desktop-file-utils;
/// .ci/install-deps installs them), in a temporary HOME with its own XDG directories. The entry's
/// Exec is a recorder script standing in for `authctl callback`: it writes its arguments to a file,
/// so the test sees exactly what the desktop passed.
@Suite struct DesktopHandlerTests {
    let url = "shop.4242.app://callback?code=x&state=y"

    /// A temporary HOME, the handler for it, and the recorder registered for `shop.4242.app`.
    struct Desktop {
        let home: TemporaryDirectory
        var handler: DesktopHandler { DesktopHandler(dataHome: home.appending("data"), configHome: home.appending("config")) }
        var recorder: String { home.appending("bin/record callback") }
        var recorded: String { home.appending("argv") }
        var entry: DesktopEntry { DesktopEntry(scheme: "shop.4242.app", executable: recorder) }

        init() throws {
            home = try TemporaryDirectory(prefix: "authctl-desktop")
            try FileManager.default.createDirectory(atPath: home.appending("bin"), withIntermediateDirectories: true)
            // One argument per line, then "end": the URL must arrive whole, as one argument.
            let script = "#!/bin/sh\nprintf '%s\\n' \"$@\" end > '\(recorded).tmp' && mv '\(recorded).tmp' '\(recorded)'\n"
            FileManager.default.createFile(atPath: recorder, contents: Data(script.utf8), attributes: [.posixPermissions: 0o755])
        }

        var environment: [String: String] {
            [
                "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home.path, "XDG_DATA_HOME": home.appending("data"),
                "XDG_CONFIG_HOME": home.appending("config"), "XDG_DATA_DIRS": "/usr/share", "XDG_CONFIG_DIRS": "/etc/xdg",
            ]
        }

        func run(_ command: [String], extra: [String: String] = [:]) async throws -> Subprocess.Result {
            try await Subprocess.run(command, environment: environment.merging(extra) { $1 }, timeout: .seconds(30))
        }

        /// Runs an opener (`gio open`, `xdg-open`) the way a browser does. GLib launches the entry in
        /// the opener's process group and returns at once, and `Subprocess` kills the leader's group
        /// when it exits: under load that killed the recorder before it wrote (a failure seen in a
        /// full run). `setsid -w` gives the opener a session of its own, as `DesktopSession.open` does.
        func open(_ command: [String], extra: [String: String] = [:]) async throws -> Subprocess.Result {
            try await run(["setsid", "-w"] + command, extra: extra)
        }

        /// The recorder's arguments once it has run (waits for the launched child, bounded).
        func launchedArguments() async -> [String]? {
            for _ in 0..<300 {
                if let text = try? String(contentsOfFile: recorded, encoding: .utf8) {
                    return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return nil
        }
    }

    @Test func theRealXdgMimeFindsTheRegisteredEntry() async throws {
        let desktop = try Desktop()
        defer { desktop.home.remove() }
        let registration = try desktop.handler.register(desktop.entry)
        #expect(registration == .init(entryWritten: true, defaultSet: true, replaced: nil))
        let query = try await desktop.run(["xdg-mime", "query", "default", "x-scheme-handler/shop.4242.app"])
        #expect(query.stdout == "authbroker-shop.4242.app.desktop\n", "\(query)")
        let validate = try await desktop.run([
            "desktop-file-validate", desktop.home.appending("data/applications/authbroker-shop.4242.app.desktop"),
        ])
        #expect(validate.status == 0, "\(validate)")
        // update-desktop-database ran on the directory: the cache names the scheme.
        let cache = try String(contentsOfFile: desktop.home.appending("data/applications/mimeinfo.cache"), encoding: .utf8)
        #expect(cache.contains("x-scheme-handler/shop.4242.app=authbroker-shop.4242.app.desktop;"))
    }

    @Test func gioOpenLaunchesTheEntryWithTheWholeURLAsOneArgument() async throws {
        let desktop = try Desktop()
        defer { desktop.home.remove() }
        _ = try desktop.handler.register(desktop.entry)
        let open = try await desktop.open(["gio", "open", url])
        #expect(open.status == 0, "\(open)")
        #expect(await desktop.launchedArguments() == ["callback", url, "end", ""])
    }

    @Test func xdgOpenUnderGNOMELaunchesTheEntry() async throws {
        let desktop = try Desktop()
        defer { desktop.home.remove() }
        _ = try desktop.handler.register(desktop.entry)
        let open = try await desktop.open(["xdg-open", url], extra: ["XDG_CURRENT_DESKTOP": "GNOME"])
        #expect(open.status == 0, "\(open)")
        #expect(await desktop.launchedArguments() == ["callback", url, "end", ""])
    }

    /// `%` on the Exec line. As the program's path GLib cannot run it even escaped as the spec says
    /// (`%%`: gio looks the program up before it expands field codes and drops the entry), so
    /// authctl refuses to register from such a path, in one line; in a later argument (`--socket`)
    /// the escaped `%%` reaches the program as `%`.
    @Test func aPercentInTheProgramsPathIsRefusedAndInTheSocketPathReachesTheProgram() async throws {
        let desktop = try Desktop()
        defer { desktop.home.remove() }
        let odd = desktop.home.appending("bin/100%/record")
        try FileManager.default.createDirectory(atPath: desktop.home.appending("bin/100%"), withIntermediateDirectories: true)
        try ProductBinary.copyExecutable(desktop.recorder, to: odd)
        let refused = DesktopEntry(scheme: "shop.4242.app", executable: odd)
        #expect {
            try desktop.handler.register(refused)
        } throws: { error in
            "\(error)".contains("contains '%'") && !"\(error)".contains("\n")
        }
        // Why: the entry as the spec spells it, written anyway, leaves the scheme without a handler.
        _ = try desktop.handler.register(desktop.entry)
        try refused.contents.write(
            toFile: desktop.handler.applicationsDirectory + "/" + refused.fileID, atomically: true, encoding: .utf8)
        #expect(refused.contents.contains("Exec=\(desktop.home.appending("bin/100%%/record")) callback %u"))
        let unrunnable = try await desktop.open(["gio", "open", url])
        #expect(unrunnable.status != 0, "\(unrunnable)")

        let other = try Desktop()
        defer { other.home.remove() }
        let socket = "/run/100%/my sock"
        _ = try other.handler.register(DesktopEntry(scheme: "shop.4242.app", executable: other.recorder, socket: socket))
        let open = try await other.open(["gio", "open", url])
        #expect(open.status == 0, "\(open)")
        #expect(await other.launchedArguments() == ["--socket", socket, "callback", url, "end", ""])
    }

    @Test func aSecondRegistrationChangesNothing() throws {
        let desktop = try Desktop()
        defer { desktop.home.remove() }
        _ = try desktop.handler.register(desktop.entry)
        let before = try Data(contentsOf: URL(fileURLWithPath: desktop.handler.mimeAppsPath))
        #expect(try desktop.handler.register(desktop.entry) == .init())
        #expect(try Data(contentsOf: URL(fileURLWithPath: desktop.handler.mimeAppsPath)) == before)
    }

    @Test func anotherApplicationsDefaultIsReplacedAndNamed() async throws {
        let desktop = try Desktop()
        defer { desktop.home.remove() }
        try FileManager.default.createDirectory(atPath: desktop.handler.configHome, withIntermediateDirectories: true)
        let original = "# mine\n[Default Applications]\nx-scheme-handler/shop.4242.app=other.desktop\ntext/html=firefox.desktop\n"
        try original.write(toFile: desktop.handler.mimeAppsPath, atomically: false, encoding: .utf8)
        #expect(try desktop.handler.register(desktop.entry).replaced == "other.desktop")
        let after = try String(contentsOfFile: desktop.handler.mimeAppsPath, encoding: .utf8)
        #expect(after == original.replacingOccurrences(of: "=other.desktop", with: "=authbroker-shop.4242.app.desktop"))
        let query = try await desktop.run(["xdg-mime", "query", "default", "x-scheme-handler/shop.4242.app"])
        #expect(query.stdout == "authbroker-shop.4242.app.desktop\n")
    }

    @Test func anExistingMimeappsListKeepsItsPermissions() throws {
        let desktop = try Desktop()
        defer { desktop.home.remove() }
        try FileManager.default.createDirectory(atPath: desktop.handler.configHome, withIntermediateDirectories: true)
        FileManager.default.createFile(
            atPath: desktop.handler.mimeAppsPath, contents: Data(), attributes: [.posixPermissions: 0o600])
        _ = try desktop.handler.register(desktop.entry)
        let mode = try FileManager.default.attributesOfItem(atPath: desktop.handler.mimeAppsPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func unregisteringRemovesTheEntryAndOnlyOurDefault() async throws {
        let desktop = try Desktop()
        defer { desktop.home.remove() }
        try FileManager.default.createDirectory(atPath: desktop.handler.configHome, withIntermediateDirectories: true)
        try "[Default Applications]\ntext/html=firefox.desktop\n".write(
            toFile: desktop.handler.mimeAppsPath, atomically: false, encoding: .utf8)
        _ = try desktop.handler.register(desktop.entry)
        #expect(try desktop.handler.unregister(scheme: "shop.4242.app"))
        #expect(
            try String(contentsOfFile: desktop.handler.mimeAppsPath, encoding: .utf8)
                == "[Default Applications]\ntext/html=firefox.desktop\n")
        #expect(!FileManager.default.fileExists(atPath: desktop.handler.applicationsDirectory + "/" + desktop.entry.fileID))
        let query = try await desktop.run(["xdg-mime", "query", "default", "x-scheme-handler/shop.4242.app"])
        #expect(query.stdout.isEmpty, "\(query)")
        #expect(try !desktop.handler.unregister(scheme: "shop.4242.app"))
    }

    @Test func aSymlinkedMimeappsListIsNotWrittenThrough() throws {
        let desktop = try Desktop()
        defer { desktop.home.remove() }
        let outside = desktop.home.appending("outside.list")
        try "[Default Applications]\n".write(toFile: outside, atomically: false, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: desktop.handler.configHome, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: desktop.handler.mimeAppsPath, withDestinationPath: outside)
        #expect(
            throws: DesktopError.symlink(
                path: desktop.handler.mimeAppsPath, line: "x-scheme-handler/shop.4242.app=authbroker-shop.4242.app.desktop")
        ) {
            try desktop.handler.register(desktop.entry)
        }
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "[Default Applications]\n")
        // Once the user has added the line there, registering goes through without writing it.
        let added = "[Default Applications]\nx-scheme-handler/shop.4242.app=authbroker-shop.4242.app.desktop\n"
        try added.write(toFile: outside, atomically: false, encoding: .utf8)
        #expect(try desktop.handler.register(desktop.entry) == .init(entryWritten: false, defaultSet: false, replaced: nil))
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == added)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: desktop.handler.mimeAppsPath)) == outside)
    }

    @Test func aSymlinkAtTheEntrysNameIsReplacedNotFollowed() throws {
        let desktop = try Desktop()
        defer { desktop.home.remove() }
        let outside = desktop.home.appending("outside.desktop")
        try "keep".write(toFile: outside, atomically: false, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: desktop.handler.applicationsDirectory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: desktop.handler.applicationsDirectory + "/" + desktop.entry.fileID, withDestinationPath: outside)
        #expect(try desktop.handler.register(desktop.entry).entryWritten)
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "keep")
        let written = try String(
            contentsOfFile: desktop.handler.applicationsDirectory + "/" + desktop.entry.fileID, encoding: .utf8)
        #expect(written == desktop.entry.contents)
    }

    @Test func aDirectoryOthersMayWriteIsRefused() throws {
        let desktop = try Desktop()
        defer { desktop.home.remove() }
        try FileManager.default.createDirectory(
            atPath: desktop.handler.applicationsDirectory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o777])
        #expect(throws: DesktopError.notOwned(path: desktop.handler.applicationsDirectory)) {
            try desktop.handler.register(desktop.entry)
        }
    }

    @Test func theXDGDirectoriesDefaultUnderHomeAndIgnoreRelativeValues() throws {
        let handler = try DesktopHandler(environment: ["HOME": "/home/u", "XDG_DATA_HOME": "rel", "XDG_CONFIG_HOME": "/c"])
        #expect(handler.applicationsDirectory == "/home/u/.local/share/applications")
        #expect(handler.mimeAppsPath == "/c/mimeapps.list")
        #expect(throws: DesktopError.noHome) { try DesktopHandler(environment: [:]) }
    }
}
