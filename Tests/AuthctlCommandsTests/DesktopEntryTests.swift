import Testing

@testable import AuthctlCommands

/// The desktop entry authctl writes: keys, file ID and the spec's Exec quoting.
@Suite struct DesktopEntryTests {
    @Test func theEntryHasTheKeysTheDesktopNeeds() {
        let entry = DesktopEntry(scheme: "shop.4242.app", executable: "/usr/bin/authctl")
        let lines = entry.contents.split(separator: "\n").map(String.init)
        #expect(lines.first == "[Desktop Entry]")
        for line in [
            "Type=Application", "NoDisplay=true", "Terminal=false", "MimeType=x-scheme-handler/shop.4242.app;",
            "Exec=/usr/bin/authctl callback %u",
        ] {
            #expect(lines.contains(line))
        }
        #expect(entry.fileID == "authbroker-shop.4242.app.desktop")
    }

    @Test func aSocketOtherThanTheDefaultIsPassedOnTheExecLine() {
        let entry = DesktopEntry(scheme: "shop.4242.app", executable: "/usr/bin/authctl", socket: "/run/authbroker/my sock")
        #expect(
            entry.contents.contains("\nExec=/usr/bin/authctl --socket \"/run/authbroker/my sock\" callback %u\n"),
            "\(entry.contents)")
        #expect(DesktopEntry(scheme: "x.y", executable: "/a", socket: "/s\nExec=/bin/evil").problem?.contains("socket") == true)
        #expect(DesktopEntry(scheme: "x.y", executable: "/a", socket: "/run/s").problem == nil)
    }

    @Test func aPlusInTheSchemeBecomesAnUnderscoreInTheFileID() {
        #expect(DesktopEntry(scheme: "com.example+app", executable: "/a").fileID == "authbroker-com.example_app.desktop")
    }

    @Test func execQuotesReservedCharactersAndEscapesBackslashTwice() {
        #expect(DesktopEntry.execArgument("/opt/my tools/authctl") == "\"/opt/my tools/authctl\"")
        #expect(DesktopEntry.execArgument("/o/a$b") == "\"/o/a\\\\$b\"")
        #expect(DesktopEntry.execArgument("/o/a\\b") == "\"/o/a\\\\\\\\b\"")
        #expect(DesktopEntry.execArgument("/o/a\"b") == "\"/o/a\\\\\"b\"")
        #expect(DesktopEntry.execArgument("/o/100%/authctl") == "/o/100%%/authctl")
    }

    @Test func executablesThatCannotBeWrittenAreRefused() {
        #expect(DesktopEntry.problem(withExecutable: "authctl") != nil)
        #expect(DesktopEntry.problem(withExecutable: "/a\nb") != nil)
        #expect(DesktopEntry.problem(withExecutable: "/usr/bin/authctl") == nil)
        // GLib cannot run a program whose path has a '%' (DesktopHandlerTests); a socket path may.
        #expect(DesktopEntry.problem(withExecutable: "/o/100%/authctl")?.contains("'%'") == true)
        #expect(DesktopEntry(scheme: "x.y", executable: "/a", socket: "/run/100%/s").problem == nil)
    }

    @Test func schemesFollowRFC3986AndBrowserOwnedOnesAreRefused() {
        #expect(DesktopEntry.scheme(of: "shop.4242.app://callback") == "shop.4242.app")
        #expect(DesktopEntry.scheme(of: "MyApp:/auth/callback") == "myapp")
        #expect(DesktopEntry.scheme(of: "com.example+x-y:/cb") == "com.example+x-y")
        for refused in [
            "https://example.com/cb", "HTTP://x", "file:/etc/passwd", "mailto:a@b", "4shop://cb", "sh_op://cb", "/cb", ":x",
        ] {
            #expect(DesktopEntry.scheme(of: refused) == nil, "\(refused)")
        }
    }
}
