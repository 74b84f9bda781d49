import Foundation

/// The `sh` examples of a doc page, as commands to run as written (GuideExamplesTests): lines
/// continued with `\` joined, blank and comment lines dropped. A comment line right after a
/// command that shows its result — `# prints TEXT`, `# {…}` (a JSON answer) or `# authctl: …`
/// (an error) — is kept as that command's expected output, as are the lines after a `$ CMD`
/// prompt in a transcript block.
struct DocExample: CustomStringConvertible {
    var command: String
    var expected: String?
    /// The expected output is exactly what the command prints (`# prints`, a transcript), not a
    /// message whose paths are an installation's (`withoutPaths`).
    var exact = false

    var description: String { command }

    /// The `sh` blocks between the heading `section` (a whole line, e.g. "## Caller policy: …")
    /// and the next heading of its level; nil: the whole page.
    static func blocks(in doc: String, section: String? = nil) -> [[DocExample]] {
        var text = doc
        if let section, let start = doc.range(of: "\n" + section + "\n") {
            let rest = doc[start.upperBound...]
            let level = String(section.prefix { $0 == "#" }) + " "
            text = String(rest.components(separatedBy: "\n" + level).first ?? "")
        }
        return text.components(separatedBy: "```sh\n").dropFirst().map { examples(in: $0.components(separatedBy: "```")[0]) }
    }

    private static func examples(in block: String) -> [DocExample] {
        var lines: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) {
            if let last = lines.last, last.hasSuffix("\\") {
                lines[lines.count - 1] = String(last.dropLast()) + line.trimmingCharacters(in: .whitespaces)
            } else {
                lines.append(line)
            }
        }
        var examples: [DocExample] = []
        let transcript = lines.contains { $0.hasPrefix("$ ") }
        for line in lines {
            if transcript {
                if line.hasPrefix("$ ") {
                    examples.append(DocExample(command: String(line.dropFirst(2)), exact: true))
                } else if !examples.isEmpty {
                    examples[examples.count - 1].expected = [examples[examples.count - 1].expected, line].compactMap { $0 }
                        .joined(separator: "\n")
                }
            } else if line.hasPrefix("# ") {
                let comment = String(line.dropFirst(2))
                let shown = comment.hasPrefix("prints ") || comment.hasPrefix("{") || comment.hasPrefix("authctl: ")
                if shown, !examples.isEmpty, examples[examples.count - 1].expected == nil {
                    let prints = comment.hasPrefix("prints ")
                    examples[examples.count - 1].expected = prints ? String(comment.dropFirst(7)) : comment
                    examples[examples.count - 1].exact = prints
                }
            } else if !line.hasPrefix("#") {
                examples.append(DocExample(command: line))
            }
        }
        return examples
    }

    /// `text` with every absolute path (from a "/" to the next space or parenthesis) as `PATH`:
    /// where the doc shows an installation's paths (/usr/local/bin/authctl, /usr/bin/bash), a
    /// test has its own.
    static func withoutPaths(_ text: String) -> String {
        var result = ""
        var inPath = false
        for character in text {
            if inPath, character == " " || character == "(" || character == ")" || character == "\"" { inPath = false }
            if !inPath, character == "/" {
                inPath = true
                result += "PATH"
            }
            if !inPath { result.append(character) }
        }
        return result
    }
}
