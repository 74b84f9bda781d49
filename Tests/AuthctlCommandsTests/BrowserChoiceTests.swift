import BrokerProtocol
import Glibc
import SystemCalls
import Testing

@testable import AuthctlCommands

/// Which browser `authctl login` runs, and how its failure is seen (docs/guide.md, "Signing in: which browser").
@Suite struct BrowserChoiceTests {
    static let everything = ["AUTHBROKER_BROWSER": "env-browser", "BROWSER": "one:two %s", "DISPLAY": ":0"]

    func resolve(flag: String? = nil, account: String? = nil, _ environment: [String: String]) throws -> [String] {
        try BrowserChoice.resolve(flag: flag, account: account, environment: environment).candidates.map(\.description)
    }

    @Test func precedenceIsFlagAccountAuthbrokerBrowserBrowserThenXdgOpen() throws {
        #expect(try resolve(flag: "flag", account: "account", Self.everything) == ["flag"])
        #expect(try resolve(account: "account", Self.everything) == ["account"])
        #expect(try resolve(Self.everything) == ["env-browser"])
        #expect(try resolve(["BROWSER": "one:two %s", "AUTHBROKER_BROWSER": ""]) == ["one", "two %s"])
        #expect(try resolve(["BROWSER": "::", "WAYLAND_DISPLAY": "wayland-0"]) == ["xdg-open"])
        #expect(try resolve([:]) == [], "xdg-open needs a display")
        #expect(try resolve(["BROWSER": "w3m"]) == ["w3m"], "an explicit command runs without a display")
    }

    @Test func anUnusableCommandIsAUsageErrorNamingWhereItCameFrom() {
        #expect(throws: UsageError.self) { try resolve(["AUTHBROKER_BROWSER": "a\nb"]) }
        do {
            _ = try resolve(["BROWSER": "fine:" + String(repeating: "x", count: 2000)])
            Issue.record("an overlong BROWSER entry was accepted")
        } catch {
            #expect("\(error)".contains("BROWSER"), "\(error)")
        }
    }

    @Test func theURLIsOneArgumentOfTheShellNeverPartOfItsScript() throws {
        let url = "https://idp.example/a?x='$(id)'&y=;id;"
        let command = BrowserChoice.Candidate.command(try BrowserCommand("rec --app=%s"))
        #expect(command.argv(url: url) == ["/bin/sh", "-c", #"rec --app="$1""#, "sh", url])
        #expect(BrowserChoice.Candidate.xdgOpen.argv(url: url) == ["xdg-open", url])
    }

    func launch(_ commands: [String]) throws -> BrowserLaunch {
        let candidates = try commands.map { BrowserChoice.Candidate.command(try BrowserCommand($0)) }
        return BrowserLaunch(BrowserChoice(candidates: candidates, source: "test"), url: "https://idp.example/a?state=s")
    }

    /// Polls `launch` until it reports a failure or no browser of it runs any more (bounded).
    func outcome(_ launch: inout BrowserLaunch) -> String? {
        for _ in 0..<1000 {
            if let failure = launch.failure() { return failure }
            if !launch.isWatching { return nil }
            usleep(10_000)
        }
        Issue.record("the browser did not exit within 10 s")
        return nil
    }

    @Test func aFailingBrowserIsReportedOnceWithItsStatusAndNeverTheURL() throws {
        var launch = try launch(["exit 3"])
        let failure = outcome(&launch)
        #expect(failure == "exit 3 exited with status 3", "\(failure ?? "nil")")
        #expect(launch.failure() == nil, "reported twice")
        var missing = try self.launch(["authbroker-no-such-browser"])
        #expect(outcome(&missing)?.hasSuffix("exited with status 127 (command not found)") == true)
    }

    @Test func aBrowserInheritsNoneOfOurDescriptors() throws {
        // A descriptor without close-on-exec, as a library might leave one.
        let open = Glibc.open("/dev/null", O_RDONLY)
        try #require(open >= 3)
        defer { close(open) }
        var launch = try launch(["[ -e /proc/self/fd/\(open) ] && exit 9; exit 0"])
        #expect(outcome(&launch) == nil, "the browser saw descriptor \(open)")
    }

    @Test func aBrowserListStopsAtTheFirstThatSucceeds() throws {
        var list = try launch(["exit 4", "true", "exit 5"])
        #expect(outcome(&list) == nil)
        var failing = try launch(["exit 4", "exit 5"])
        #expect(outcome(&failing) == "exit 5 exited with status 5")
    }
}

/// The paste fallback's reader: whole lines, whitespace dropped, empty lines skipped, bounded.
@Suite struct PastedLinesTests {
    @Test func linesAreSplitTrimmedAndBounded() throws {
        // Close-on-exec from the start: a child another test spawns meanwhile must not inherit
        // the write end, or the reader would not see the end of input.
        let pipe = try #require(GNUCalls.closeOnExecPipe())
        let fds = [pipe.read, pipe.write]
        defer { close(fds[0]) }
        var lines = PastedLines(fd: fds[0], terminalOnly: false)
        #expect(lines.available() == [])
        let input = "  http://127.0.0.1:1/cb?code=a&state=b \r\n\n" + String(repeating: "x", count: 17 * 1024) + "\nhalf"
        _ = input.utf8CString.withUnsafeBufferPointer { write(fds[1], $0.baseAddress, $0.count - 1) }
        #expect(lines.available() == [.text("http://127.0.0.1:1/cb?code=a&state=b"), .tooLong])
        _ = "-line\n".withCString { write(fds[1], $0, 6) }
        close(fds[1])
        #expect(lines.available() == [.text("half-line")])
        // A child another thread is spawning holds a copy of every descriptor until its exec
        // closes them (close-on-exec cannot close them sooner), so the end of input may come late.
        for _ in 0..<500 where lines.isOpen {
            usleep(10_000)
            #expect(lines.available() == [])
        }
        #expect(!lines.isOpen, "end of input stops the reading")
        #expect(!PastedLines(fd: fds[0]).isOpen, "a pipe is no terminal")
    }
}
