import Foundation
import TestSupport
import Testing

/// `authctl login`'s browser (issue 11 §4) with the real binaries: which command opens the URL
/// (--browser > account > AUTHBROKER_BROWSER > $BROWSER > xdg-open), that it gets the private
/// page forwarding to the URL (never the URL: argv is world-readable) as one argument no shell
/// parses, and what happens when it fails. A fake browser on PATH records its arguments; the test
/// then plays the real browser against the mock.
@Suite(.timeLimit(.minutes(2)))
struct LoginBrowserTests {
    /// `rec LABEL` writes its argument count and arguments to `browser-LABEL.log` in `root`, then
    /// exits with `$REC_EXIT` (0 when unset); `xdg-open` does the same under the label xdg-open.
    struct FakeBrowsers {
        let root: String
        var bin: String { root + "/fake-bin" }

        init(root: String) throws {
            self.root = root
            try FileManager.default.createDirectory(atPath: root + "/fake-bin", withIntermediateDirectories: true)
            let record = """
                { echo "argc=$#"; for a in "$@"; do echo "arg=$a"; done; } > '\(root)/browser-'"$label"'.log'
                exit "${REC_EXIT:-0}"
                """
            try install("rec", "#!/bin/sh\nlabel=$1\nshift\n" + record + "\n")
            try install("xdg-open", "#!/bin/sh\nlabel=xdg-open\n" + record + "\n")
        }

        private func install(_ name: String, _ script: String) throws {
            _ = FileManager.default.createFile(
                atPath: bin + "/" + name, contents: Data(script.utf8), attributes: [.posixPermissions: 0o755])
        }

        /// The lines `rec LABEL` recorded, nil until it ran.
        func recorded(_ label: String) -> [String]? {
            (try? String(contentsOfFile: root + "/browser-\(label).log", encoding: .utf8))
                .map { $0.split(separator: "\n").map(String.init) }
        }

        /// `env PATH=fake-bin:… VARS…`: the prefix for an authctl run with these browsers on PATH.
        func prefix(_ variables: [String] = []) -> [String] {
            ["/usr/bin/env", "PATH=\(bin):/usr/bin:/bin"] + variables
        }
    }

    /// Starts `authctl login ARGS…`, waits for its URL and for `label` to record, then stops it.
    /// `page`: the `file://` URL of the page the browser got, `target`: where that page forwards
    /// (read while the login runs; authctl removes the page when it stops — checked here too).
    func launch(
        _ arguments: [String], _ harness: BrokerHarness, _ browsers: FakeBrowsers, variables: [String] = [],
        expect label: String
    ) async throws -> (url: String, recorded: [String], stderr: String, page: String, target: String?) {
        let login = try harness.spawnAuthctl(["login"] + arguments + ["--timeout", "30"], prefix: browsers.prefix(variables))
        let url = try await harness.authorizationURL(printedBy: login)
        _ = await SpawnedProcess.eventually(timeout: 20) { browsers.recorded(label) != nil || !login.isRunning }
        // The browser exits at once: the waiting login must reap it (no zombie while it waits).
        let reaped = await SpawnedProcess.eventually(timeout: 20) { Self.children(of: login.pid).isEmpty }
        #expect(reaped, "children of the waiting login: \(Self.children(of: login.pid))")
        let recorded = try #require(browsers.recorded(label), "\(label) did not run: \(login.stderr)")
        let page = try #require(
            recorded.lazy.compactMap { line in line.range(of: "file:///").map { String(line[$0.lowerBound...]) } }.first,
            "the browser got no page: \(recorded)")
        let target = LoginPageReader.target(of: page)
        _ = await login.stop(signal: SIGTERM)
        let path = try #require(LoginPageReader.path(of: page))
        #expect(!FileManager.default.fileExists(atPath: path), "the page outlived authctl")
        #expect(!FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent))
        return (url, recorded, login.stderr, page, target)
    }

    @Test func theFirstBrowserSetWinsAndGetsTheURLAsOneArgument() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        defer { _ = provider }
        let browsers = try FakeBrowsers(root: harness.root)
        try await harness.addAccount("plain", provider: provider)
        let add = try await harness.authctl([
            "account", "add", "work", "--issuer", provider.issuer, "--client-id", "mock-client", "--browser", "rec account",
        ])
        #expect(add.status == 0, "\(add)")
        let everything = ["AUTHBROKER_BROWSER=rec env", "BROWSER=rec browser", "DISPLAY=:0"]

        let flag = try await launch(["work", "--browser", "rec flag"], harness, browsers, variables: everything, expect: "flag")
        #expect(flag.recorded == ["argc=1", "arg=\(flag.page)"] && flag.target == flag.url, "\(flag)")
        let account = try await launch(["work"], harness, browsers, variables: everything, expect: "account")
        #expect(account.recorded == ["argc=1", "arg=\(account.page)"] && account.target == account.url, "\(account)")
        let environment = try await launch(["plain"], harness, browsers, variables: everything, expect: "env")
        #expect(environment.recorded == ["argc=1", "arg=\(environment.page)"] && environment.target == environment.url)
        // $BROWSER is a ':' list tried in order while each fails; the first here is not installed.
        let list = try await launch(
            ["plain"], harness, browsers, variables: ["BROWSER=no-such-browser-here:rec browser"], expect: "browser")
        #expect(list.recorded == ["argc=1", "arg=\(list.page)"] && list.target == list.url)
        #expect(!list.stderr.contains("could not open the browser"), "a later entry opened it: \(list.stderr)")
        let xdg = try await launch(["plain"], harness, browsers, variables: ["DISPLAY=:0"], expect: "xdg-open")
        #expect(xdg.recorded == ["argc=1", "arg=\(xdg.page)"] && xdg.target == xdg.url)
        #expect(browsers.recorded("account") == account.recorded, "a later login ran a lower-precedence browser")
        // The page lives in a private directory of the user's runtime directory.
        #expect(flag.page.hasPrefix("file://" + harness.runtime + "/authctl-login-"), "\(flag.page)")

        // %s places the page's URL (as one word, even inside a larger word); %% is a literal %.
        let placed = try await launch(
            ["plain", "--browser", "rec placed --app=%s 100%% %s"], harness, browsers, expect: "placed")
        #expect(placed.recorded == ["argc=3", "arg=--app=\(placed.page)", "arg=100%", "arg=\(placed.page)"])
        #expect(placed.target == placed.url)
        #expect(await harness.stopDaemon() == 0)
    }

    /// The URL carries text the provider chose (here its authorization endpoint's own query): the
    /// browser command's shell must never parse it.
    @Test func shellTextInTheURLIsNeverExecuted() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        defer { _ = provider }
        let browsers = try FakeBrowsers(root: harness.root)
        let pwned = harness.root + "/pwned"
        let hostile = "a='$(touch${IFS}\(pwned)1)'&b=;touch${IFS}\(pwned)2;&c=`touch${IFS}\(pwned)3`&d=\"$(id)\""
        let add = try await harness.authctl([
            "account", "add", "odd", "--issuer", provider.issuer, "--client-id", "mock-client",
            "--authorization-endpoint", provider.issuer + "/authorize?" + hostile, "--token-endpoint", provider.issuer + "/token",
            "--param", "login_hint=x'; touch \(pwned)4; echo '$(touch \(pwned)5)",
        ])
        #expect(add.status == 0, "\(add)")
        for (command, label, before) in [
            ("rec one", "one", []), ("rec two %s", "two", []), ("rec three '%%' %s", "three", ["arg=%"]),
        ] {
            let run = try await launch(["odd", "--browser", command], harness, browsers, expect: label)
            #expect(run.url.contains(hostile), "the endpoint's query is not in the URL as written: \(run.url)")
            #expect(run.recorded == ["argc=\(before.count + 1)"] + before + ["arg=\(run.page)"], "\(run.recorded)")
            // The page keeps the URL (quotes and all) one attribute value: it forwards to exactly it.
            #expect(run.target == run.url, "the page forwards to \(run.target ?? "nothing")")
        }
        for number in 1...5 { #expect(!FileManager.default.fileExists(atPath: pwned + "\(number)"), "ran \(number)") }
        #expect(await harness.stopDaemon() == 0)
    }

    @Test func aFailingBrowserIsReportedOnceAndTheLoginStillCompletes() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        let browsers = try FakeBrowsers(root: harness.root)
        try await harness.addAccount("work", provider: provider)
        let login = try harness.spawnAuthctl(
            ["login", "work", "--browser", "REC_EXIT=3 rec failing", "--timeout", "30"], prefix: browsers.prefix())
        let url = try await harness.authorizationURL(printedBy: login)
        let reported = await SpawnedProcess.eventually(timeout: 20) { login.stderr.contains("could not open the browser") }
        #expect(reported, "\(login.stderr)")
        let lines = login.stderr.split(separator: "\n").filter { $0.contains("could not open the browser") }
        #expect(lines.count == 1, "\(lines)")
        let line = String(lines.first ?? "")
        #expect(line.contains("REC_EXIT=3 rec failing exited with status 3"), "\(line)")
        #expect(line.contains("authctl login work --device") && line.contains("authctl callback URL"), "\(line)")
        #expect(!line.contains(url) && !line.contains("state="), "the message showed the URL: \(line)")
        #expect(Self.children(of: login.pid).isEmpty, "the exited browser was not reaped")
        #expect(login.isRunning, "a failed browser must not end the login")

        #expect(try await provider.playBrowser(url) == 200)
        #expect(await login.waitForExit(timeout: 20) == 0, "\(login.stderr)")
        #expect(login.stderr.split(separator: "\n").filter { $0.contains("could not open the browser") }.count == 1)
        #expect(await harness.stopDaemon() == 0)
        await provider.stop()
    }

    @Test func aBrowserThatIsNotInstalledSaysCommandNotFound() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        defer { _ = provider }
        try await harness.addAccount("work", provider: provider)
        let login = try harness.spawnAuthctl(["login", "work", "--browser", "no-such-browser-here", "--timeout", "30"])
        _ = try await harness.authorizationURL(printedBy: login)
        let reported = await SpawnedProcess.eventually(timeout: 20) { login.stderr.contains("could not open the browser") }
        #expect(
            reported && login.stderr.contains("no-such-browser-here exited with status 127 (command not found)"),
            "\(login.stderr)")
        _ = await login.stop(signal: SIGTERM)
        let invalid = try await harness.authctl(["login", "work", "--browser", "firefox\nrm -rf ~"])
        #expect(invalid.status == 64 && invalid.stderr.contains("line break"), "\(invalid)")
        let badEnvironment = try await harness.authctl(
            ["login", "work"], prefix: ["/usr/bin/env", "AUTHBROKER_BROWSER=" + String(repeating: "x", count: 2000)])
        #expect(badEnvironment.status == 64 && badEnvironment.stderr.contains("AUTHBROKER_BROWSER"), "\(badEnvironment)")
        #expect(await harness.stopDaemon() == 0)
    }

    static let desktopTools = ["/usr/bin/xdg-open", "/usr/bin/gio"].allSatisfy {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The default browser with the real `xdg-open` (GNOME: it runs the real `gio open`): the
    /// desktop's `text/html` application gets the page (GLib hands it the path), follows it, and
    /// the login completes — the page is readable by the user's own browser and forwards correctly.
    @Test(.enabled(if: desktopTools, "needs xdg-open (xdg-utils) and gio (libglib2.0-bin)"))
    func theRealXdgOpenHandsThePageToTheDesktopsBrowserAndTheLoginCompletes() async throws {
        let (harness, provider) = try await BrokerHarness.withDaemon()
        try await harness.addAccount("work", provider: provider)
        let follower = try LoginPageReader.installFollower(in: harness.root)
        let log = harness.root + "/desktop-browser.log"
        let browser = harness.root + "/desktop-browser"
        let script = "#!/bin/sh\nprintf '%s\\n' \"$@\" > '\(log)'\nexec '\(follower)' \"$1\"\n"
        #expect(
            FileManager.default.createFile(atPath: browser, contents: Data(script.utf8), attributes: [.posixPermissions: 0o755]))
        let applications = harness.root + "/.local/share/applications"
        try FileManager.default.createDirectory(atPath: applications, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: harness.root + "/config", withIntermediateDirectories: true)
        let entry = "[Desktop Entry]\nType=Application\nName=Test browser\nExec=\(browser) %u\nMimeType=text/html;\n"
        try entry.write(toFile: applications + "/test-browser.desktop", atomically: true, encoding: .utf8)
        try "[Default Applications]\ntext/html=test-browser.desktop\n"
            .write(toFile: harness.root + "/config/mimeapps.list", atomically: true, encoding: .utf8)

        let login = try harness.spawnAuthctl(
            ["login", "work", "--timeout", "60"],
            prefix: ["/usr/bin/env", "DISPLAY=:0", "XDG_CURRENT_DESKTOP=GNOME", "PATH=/usr/bin:/bin"])
        let url = try await harness.authorizationURL(printedBy: login)
        #expect(await login.waitForExit(timeout: 60) == 0, "\(login.stderr)")
        let given = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        // The page (as a path or a file:// URL, as GLib chooses), never the URL.
        #expect(given.contains(harness.runtime + "/authctl-login-") && given.contains("/login.html"), "\(given)")
        #expect(!given.contains(url) && !given.contains("state="), "\(given)")
        #expect(try await provider.stats.codeExchanges == 1)
        #expect(await harness.stopDaemon() == 0)
    }

    /// The processes whose parent is `pid`, with their state (Z: exited, not waited for), from /proc.
    static func children(of pid: pid_t) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { Int($0) != nil }.compactMap { entry in
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && fields[1] == "\(pid)" ? "\(entry) \(fields[0])" : nil
        }
    }
}
