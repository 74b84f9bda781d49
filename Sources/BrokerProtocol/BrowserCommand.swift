/// A browser command as a user writes it (`--browser`, the account's `browser`, `AUTHBROKER_BROWSER`,
/// one entry of `$BROWSER`): a shell command that `authctl login` runs with `sh -c`, where `%s`
/// stands for the authorization URL and `%%` for a `%`; without `%s` the URL is appended. The URL
/// always reaches the shell as the positional parameter `$1`, written `"$1"`, so the shell expands
/// it as one word and never parses it: the URL carries provider-chosen text (`'`, `$(…)`, `;`).
///
/// Checked at every edge it enters by (the CLI flags, the environment, the daemon's account
/// validation) with the same rule, `problem(with:)`.
public struct BrowserCommand: Sendable, Equatable, CustomStringConvertible {
    /// The command as written, shown in messages (it never contains the URL).
    public let template: String

    /// Generous for `firefox -P work --new-window`-style commands; anything longer is a mistake
    /// or an attack on whoever reads `account show`.
    public static let maxLength = 1024

    public init(_ template: String) throws(UsageError) {
        if let problem = Self.problem(with: template) { throw UsageError("invalid browser command: \(problem)") }
        self.template = template
    }

    /// Why `text` cannot be a browser command, or nil. Line breaks would let one command smuggle
    /// a second line into the shell script; NUL cannot pass through exec at all.
    public static func problem(with text: String) -> String? {
        if text.allSatisfy(\.isWhitespace) { return "it is empty" }
        if text.utf8.count > maxLength { return "it is longer than \(maxLength) bytes" }
        if text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
            return "it contains a line break or another control character"
        }
        return nil
    }

    /// The script for `sh -c SCRIPT sh URL`: each `%s` becomes `"$1"`, `%%` becomes `%`, and
    /// `"$1"` is appended when there is no `%s`. Any other `%` is kept as written.
    public var shellScript: String {
        var script = ""
        var placed = false
        var rest = Substring(template)
        while let percent = rest.firstIndex(of: "%") {
            script += rest[..<percent]
            let next = rest.index(after: percent)
            switch next < rest.endIndex ? rest[next] : nil {
            case "s":
                script += "\"$1\""
                placed = true
                rest = rest[rest.index(after: next)...]
            case "%":
                script += "%"
                rest = rest[rest.index(after: next)...]
            default:
                script += "%"
                rest = rest[next...]
            }
        }
        script += rest
        return placed ? script : script + " \"$1\""
    }

    public var description: String { template }
}
