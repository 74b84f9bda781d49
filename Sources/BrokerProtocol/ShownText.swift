/// Caller-chosen text (an executable path, a process name) made safe to show a person: printed by
/// `authctl approvals`/`approve`, put in a notification or a log message, or offered as a command
/// to paste. A program picks its own path and name, so they may hold terminal escapes or newlines.
public enum ShownText {
    /// `text` with every control character (C0, DEL, C1) shown as `\xNN` and a backslash as `\\`,
    /// so an escape sequence or a forged line in a path prints as text: `/tmp/a\x1b[2Jb`.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                shown += "\\\\"
            } else if needsEscape(scalar) {
                let hex = String(scalar.value, radix: 16)
                shown += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            } else {
                shown.unicodeScalars.append(scalar)
            }
        }
        return shown
    }

    /// `word` as one POSIX shell word, for commands shown to be pasted: unchanged when it has only
    /// characters no shell treats specially, else in single quotes (`'` as `'\''`); control
    /// characters are escaped (`escaped`) first, so the suggestion itself prints safely (such a path
    /// cannot be pasted as it is, and `--allow-exe` refuses it anyway).
    public static func shellWord(_ word: String) -> String {
        let safe =
            !word.isEmpty
            && word.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "a"..."z", "A"..."Z", "0"..."9", "/", ".", "_", "-", "+", ",", ":", "@", "=", "%": true
                default: false
                }
            }
        if safe { return word }
        var quoted = "'"
        let controls = word.unicodeScalars.contains { $0 != "\\" && needsEscape($0) }
        for character in controls ? escaped(word) : word {
            quoted += character == "'" ? "'\\''" : String(character)
        }
        return quoted + "'"
    }

    /// A command-line argument echoed in an error: escaped, and when longer than 80 characters
    /// its first 60 and "…" — a pasted token or a runaway variable should not fill the screen.
    public static func argument(_ text: String) -> String {
        let shown = escaped(text)
        guard shown.count > maximumArgumentLength else { return shown }
        return String(shown.prefix(shortenedArgumentLength)) + "…"
    }

    public static let maximumArgumentLength = 80
    public static let shortenedArgumentLength = 60

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\\"
    }
}
