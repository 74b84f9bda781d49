import BrokerProtocol
import Testing

/// Caller-chosen text shown to people (`ShownText`): control characters and terminal escapes as
/// `\xNN`, suggested commands quoted for the shell.
@Suite struct ShownTextTests {
    @Test func controlCharactersAndEscapesAreShownAsText() {
        #expect(ShownText.escaped("/usr/bin/git") == "/usr/bin/git")
        #expect(ShownText.escaped("/tmp/a\u{1B}[2Jb") == "/tmp/a\\x1b[2Jb")
        #expect(ShownText.escaped("/tmp/x\nforged line\r\u{07}\u{7F}\u{9B}") == "/tmp/x\\x0aforged line\\x0d\\x07\\x7f\\x9b")
        #expect(ShownText.escaped("/tmp/back\\slash") == "/tmp/back\\\\slash", "a backslash cannot fake an escape")
        #expect(ShownText.escaped("/tmp/é ü") == "/tmp/é ü")
    }

    @Test func shellWordsAreQuotedOnlyWhenNeeded() {
        #expect(ShownText.shellWord("/usr/lib/git-core/git-remote-https") == "/usr/lib/git-core/git-remote-https")
        #expect(ShownText.shellWord("/tmp/a b") == "'/tmp/a b'")
        #expect(ShownText.shellWord("/tmp/it's;rm -rf ~") == "'/tmp/it'\\''s;rm -rf ~'")
        #expect(ShownText.shellWord("/tmp/$(id)`x`") == "'/tmp/$(id)`x`'")
        #expect(ShownText.shellWord("/tmp/a\u{1B}b") == "'/tmp/a\\x1bb'")
        #expect(ShownText.shellWord("") == "''")
    }

    @Test func longArgumentsAreShortenedAndShortOnesKept() {
        let eighty = String(repeating: "a", count: 80)
        #expect(ShownText.argument(eighty) == eighty)
        #expect(ShownText.argument(eighty + "b") == String(repeating: "a", count: 60) + "…")
        #expect(ShownText.argument("x\u{1B}y") == "x\\x1by")
    }
}
