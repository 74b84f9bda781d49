import Foundation
import TestSupport
import Testing

/// The real `authctl` registering itself as the desktop's handler of an account's private-use
/// redirect scheme (issue 11 §1), checked with the real `xdg-mime` in the harness's temporary HOME.
@Suite struct DesktopRegistrationTests {
    static let scheme = "shop.4242.app"
    static let fileID = "authbroker-shop.4242.app.desktop"

    /// Applies accounts redirecting to `shop.4242.app://callback` (and one loopback account).
    private func apply(_ names: [String], _ harness: BrokerHarness, issuer: String) async throws {
        let accounts =
            names.map {
                "{\"name\": \"\($0)\", \"issuer\": \"\(issuer)\", \"client_id\": \"mock-client\", \"redirect_uri\": \"\(Self.scheme)://callback\"}"
            } + ["{\"name\": \"loopback\", \"issuer\": \"\(issuer)\", \"client_id\": \"mock-client\"}"]
        let file = harness.root + "/accounts.json"
        try "{\"accounts\": [\(accounts.joined(separator: ","))]}".write(toFile: file, atomically: true, encoding: .utf8)
        let applied = try await harness.authctl(["account", "apply", file])
        #expect(applied.status == 0, "\(applied)")
    }

    private func entryPath(_ harness: BrokerHarness) -> String { harness.root + "/.local/share/applications/" + Self.fileID }
    private func mimeAppsPath(_ harness: BrokerHarness) -> String { harness.root + "/config/mimeapps.list" }

    private func xdgMimeDefault(_ harness: BrokerHarness) async throws -> String {
        try await Subprocess.run(
            ["xdg-mime", "query", "default", "x-scheme-handler/\(Self.scheme)"], environment: harness.environment
        ).stdout
    }

    @Test func loginRegistersTheHandlerOnceAndXdgMimeFindsIt() async throws {
        // The default socket: the Exec line names no socket (DesktopLoginTests covers another one).
        let (harness, provider) = try await BrokerHarness.withDaemon(defaultSocket: true)
        defer { _ = provider }
        try await apply(["shop"], harness, issuer: provider.issuer)
        try FileManager.default.createDirectory(atPath: harness.root + "/config", withIntermediateDirectories: true)
        try "# mine\r\n[Default Applications]\r\ntext/html=firefox.desktop\r\n".write(
            toFile: mimeAppsPath(harness), atomically: true, encoding: .utf8)

        let login = try harness.spawnAuthctl(["login", "shop", "--no-browser", "--timeout", "10"])
        _ = try await harness.authorizationURL(printedBy: login)
        _ = await login.stop(signal: SIGTERM)
        #expect(login.stderr.contains("Registered authctl as the handler for \(Self.scheme): URLs"), "\(login.stderr)")
        let entry = try String(contentsOfFile: entryPath(harness), encoding: .utf8)
        #expect(entry.contains("\nExec=\(try BrokerHarness.binary("authctl")) callback %u\n"), "\(entry)")
        #expect(entry.contains("\nMimeType=x-scheme-handler/\(Self.scheme);\n"))
        #expect(
            try String(contentsOfFile: mimeAppsPath(harness), encoding: .utf8)
                == "# mine\r\n[Default Applications]\r\ntext/html=firefox.desktop\r\nx-scheme-handler/\(Self.scheme)=\(Self.fileID)\r\n"
        )
        #expect(try await xdgMimeDefault(harness) == Self.fileID + "\n")

        let again = try harness.spawnAuthctl(["login", "shop", "--no-browser", "--timeout", "10"])
        _ = try await harness.authorizationURL(printedBy: again)
        _ = await again.stop(signal: SIGTERM)
        #expect(!again.stderr.contains("Registered"), "\(again.stderr)")
    }

    @Test func noRegisterLeavesTheDesktopAlone() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        defer { _ = provider }
        try await apply(["shop"], harness, issuer: provider.issuer)
        let login = try harness.spawnAuthctl(["login", "shop", "--no-browser", "--no-register", "--timeout", "10"])
        _ = try await harness.authorizationURL(printedBy: login)
        _ = await login.stop(signal: SIGTERM)
        #expect(!FileManager.default.fileExists(atPath: entryPath(harness)))
        #expect(!FileManager.default.fileExists(atPath: mimeAppsPath(harness)))
    }

    @Test func registerHandlerThenRemoveKeepsTheHandlerWhileAnAccountUsesTheScheme() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        defer { _ = provider }
        try await apply(["shop", "shop2"], harness, issuer: provider.issuer)
        let registered = try await harness.authctl(["account", "register-handler", "shop"])
        #expect(registered.status == 0, "\(registered)")
        #expect(registered.stderr.contains("Registered"))
        // No desktop environment in the harness, and the scheme has digits: the xdg-utils 1.1.3 fact.
        #expect(registered.stderr.contains("takes '\(Self.scheme)://…' for a file name"), "\(registered)")
        #expect(!registered.stderr.contains("The desktop does not pick authctl"), "\(registered)")
        let again = try await harness.authctl(["account", "register-handler", "shop2"])
        #expect(again.stderr.contains("already handles \(Self.scheme): URLs"), "\(again)")
        let loopback = try await harness.authctl(["account", "register-handler", "loopback"])
        #expect(loopback.status == 0 && loopback.stderr.contains("needs no handler"), "\(loopback)")

        #expect(try await harness.authctl(["account", "remove", "shop"]).status == 0)
        #expect(try await xdgMimeDefault(harness) == Self.fileID + "\n")
        #expect(try await harness.authctl(["account", "remove", "loopback"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: entryPath(harness)))

        let last = try await harness.authctl(["account", "remove", "shop2"])
        #expect(last.stderr.contains("Removed the desktop's handler for \(Self.scheme): URLs."), "\(last)")
        #expect(!FileManager.default.fileExists(atPath: entryPath(harness)))
        #expect(try String(contentsOfFile: mimeAppsPath(harness), encoding: .utf8) == "[Default Applications]\n")
        #expect(try await xdgMimeDefault(harness).isEmpty)
    }

    @Test func aDesktopSpecificDefaultThatWinsIsReportedWithWhatToDo() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        defer { _ = provider }
        try await apply(["shop"], harness, issuer: provider.issuer)
        try FileManager.default.createDirectory(atPath: harness.root + "/config", withIntermediateDirectories: true)
        try "[Default Applications]\nx-scheme-handler/\(Self.scheme)=other.desktop\n".write(
            toFile: harness.root + "/config/gnome-mimeapps.list", atomically: true, encoding: .utf8)
        let applications = harness.root + "/.local/share/applications"
        try FileManager.default.createDirectory(atPath: applications, withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=Other\nExec=/bin/true %u\nMimeType=x-scheme-handler/\(Self.scheme);\n".write(
            toFile: applications + "/other.desktop", atomically: true, encoding: .utf8)
        let run = try await Subprocess.run(
            [try BrokerHarness.binary("authctl"), "--socket", harness.socket, "account", "register-handler", "shop"],
            environment: harness.environment.merging(["XDG_CURRENT_DESKTOP": "GNOME"]) { $1 })
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("`xdg-mime query default x-scheme-handler/\(Self.scheme)` names 'other.desktop'"), "\(run)")
        #expect(run.stderr.contains("xdg-mime default \(Self.fileID) x-scheme-handler/\(Self.scheme)"))
        #expect(!run.stderr.contains("for a file name"), "a desktop is set: xdg-open delegates to gio")
    }
}
