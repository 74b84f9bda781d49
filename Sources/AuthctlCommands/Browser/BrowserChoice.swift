import BrokerProtocol

/// Which browser `authctl login` opens the authorization URL with. The first that is set wins:
/// `--browser CMD`, the account's `browser`, `AUTHBROKER_BROWSER`, `$BROWSER`, else xdg-open.
///
/// Each of the first four is a `BrowserCommand` (run with `sh -c`, `%s` is the URL); only
/// `$BROWSER` is split on `:` into a list, tried in order while each fails, as the convention
/// for that variable has it (man 7 environ; Python's webbrowser, xdg-open). An explicit command
/// runs even without a display — the user asked for it (wslview, a browser on a remote display);
/// xdg-open only with `DISPLAY` or `WAYLAND_DISPLAY`, since without one it cannot succeed.
struct BrowserChoice: Equatable {
    /// One way to open the URL.
    enum Candidate: Equatable, CustomStringConvertible {
        case command(BrowserCommand)
        case xdgOpen

        /// The argv to spawn; the URL is one argument, never part of a shell script.
        func argv(url: String) -> [String] {
            switch self {
            case .command(let command): ["/bin/sh", "-c", command.shellScript, "sh", url]
            case .xdgOpen: ["xdg-open", url]
            }
        }

        var description: String {
            switch self {
            case .command(let command): command.template
            case .xdgOpen: "xdg-open"
            }
        }
    }

    /// What to try, in order; empty when nothing can be opened (xdg-open without a display).
    var candidates: [Candidate]
    /// Where the choice came from, for messages: "--browser", "AUTHBROKER_BROWSER", …
    var source: String

    /// Resolves the precedence. An unusable command is a usage error naming where it came from,
    /// never silently skipped: falling through to another browser would open the wrong profile.
    static func resolve(
        flag: String?, account: String?, environment: [String: String]
    ) throws(UsageError) -> BrowserChoice {
        if let flag { return try single(flag, source: "--browser") }
        if let account { return try single(account, source: "the account's browser") }
        if let value = environment["AUTHBROKER_BROWSER"], !value.isEmpty {
            return try single(value, source: "AUTHBROKER_BROWSER")
        }
        if let value = environment["BROWSER"], !value.isEmpty {
            var candidates: [Candidate] = []
            for entry in value.split(separator: ":") where !entry.allSatisfy(\.isWhitespace) {
                candidates.append(.command(try command(String(entry), source: "an entry of BROWSER")))
            }
            if !candidates.isEmpty { return BrowserChoice(candidates: candidates, source: "BROWSER") }
        }
        let display = environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil
        return BrowserChoice(candidates: display ? [.xdgOpen] : [], source: "xdg-open")
    }

    private static func single(_ text: String, source: String) throws(UsageError) -> BrowserChoice {
        BrowserChoice(candidates: [.command(try command(text, source: source))], source: source)
    }

    private static func command(_ text: String, source: String) throws(UsageError) -> BrowserCommand {
        if let problem = BrowserCommand.problem(with: text) {
            throw UsageError("\(source) is not a usable browser command: \(problem); fix it or use --no-browser")
        }
        return try BrowserCommand(text)
    }
}
