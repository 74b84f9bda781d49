import BrokerProtocol
import Testing

/// The browser command syntax (docs/guide.md): run with `sh -c`, `%s` is the URL as the quoted
/// positional `"$1"`, `%%` a `%`, the URL appended when there is no `%s`.
@Suite struct BrowserCommandTests {
    @Test(arguments: [
        ("firefox -P work", #"firefox -P work "$1""#),
        ("chromium --app=%s", #"chromium --app="$1""#),
        ("open %s; echo %s", #"open "$1"; echo "$1""#),
        ("x 100%% %s", #"x 100% "$1""#),
        ("x 50%", #"x 50% "$1""#),
        ("x %d %", #"x %d % "$1""#),
        ("x %%s", #"x %s "$1""#),
    ])
    func theURLIsAlwaysThePositionalParameter(template: String, script: String) throws {
        #expect(try BrowserCommand(template).shellScript == script)
    }

    @Test func lineBreaksControlCharactersEmptyAndOverlongCommandsAreRefused() {
        for (text, reason) in [
            ("firefox\nrm -rf ~", "line break"), ("firefox\r", "line break"), ("a\u{0}b", "control"), ("a\u{7F}", "control"),
            ("", "empty"), ("  \t", "empty"), (String(repeating: "x", count: BrowserCommand.maxLength + 1), "longer"),
        ] {
            #expect(BrowserCommand.problem(with: text)?.contains(reason) == true, "\(text.prefix(20))")
            #expect(throws: UsageError.self) { try BrowserCommand(text) }
        }
        #expect(BrowserCommand.problem(with: "firefox\t-P 'my profile'") == nil)
        #expect(BrowserCommand.problem(with: String(repeating: "x", count: BrowserCommand.maxLength)) == nil)
    }
}
