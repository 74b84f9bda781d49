import Foundation
import TestSupport
import Testing

/// docs/providers.md must not drift from authctl: every `authctl account add` line in it is run
/// through the real authctl binary against a socket where no daemon listens. authctl parses and
/// checks the whole command line before it connects, so exit 69 ("daemon not running") proves the
/// line is accepted; a usage error exits 64 and names the offending flag.
@Suite struct ProvidersDocTests {
    static let providers = [
        "Google", "Microsoft Entra ID", "GitHub", "Keycloak", "Okta", "Auth0", "Dex", "django-oauth-toolkit",
        "WorkOS AuthKit", "Shopify Customer Account API", "GitLab",
    ]

    /// The shell commands of the ```sh blocks, continuation lines joined.
    static func commands(in markdown: String) -> [String] {
        var commands: [String] = []
        var inShell = false
        var current = ""
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inShell = line == "```sh"
                continue
            }
            guard inShell else { continue }
            current += line.hasSuffix("\\") ? String(line.dropLast()) + " " : String(line)
            if !line.hasSuffix("\\") {
                commands.append(current.split(separator: " ").joined(separator: " "))
                current = ""
            }
        }
        return commands
    }

    /// `## Provider` headings and the commands of each section.
    static func sections(in markdown: String) -> [String: [String]] {
        var result: [String: String] = [:]
        var heading = ""
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                heading = String(line.dropFirst(3))
                continue
            }
            result[heading, default: ""] += line + "\n"
        }
        return result.mapValues { commands(in: $0).filter { $0.hasPrefix("authctl account add ") } }
    }

    @Test func everyProviderHasAnAccountAddLine() throws {
        let markdown = try String(contentsOfFile: ChildProcess.repositoryRoot + "/docs/providers.md", encoding: .utf8)
        let sections = Self.sections(in: markdown)
        for provider in Self.providers {
            let matching = sections.filter { $0.key.hasPrefix(provider) }.flatMap(\.value)
            #expect(!matching.isEmpty, "docs/providers.md has no `authctl account add` line under '## \(provider)'")
        }
    }

    @Test func everyAccountAddLineIsAcceptedByAuthctl() async throws {
        let markdown = try String(contentsOfFile: ChildProcess.repositoryRoot + "/docs/providers.md", encoding: .utf8)
        let lines = Self.commands(in: markdown).filter { $0.hasPrefix("authctl account add ") }
        try #require(lines.count >= Self.providers.count)
        let directory = try TemporaryDirectory(prefix: "providers-doc")
        defer { directory.remove() }
        let secretFile = directory.appending("client.secret")
        try "not-a-real-secret\n".write(toFile: secretFile, atomically: true, encoding: .utf8)
        let authctl = try ChildProcess.binary("authctl")
        for line in lines {
            #expect(
                !line.contains("\"") && !line.contains("'") && !line.contains("$"),
                "keep doc lines free of shell quoting: \(line)")
            var words = line.split(separator: " ").map(String.init)
            words.removeFirst()  // "authctl"
            // The secret files named in the docs live in the user's home; point them at a real file.
            if let index = words.firstIndex(of: "--client-secret-file"), index + 1 < words.count {
                words[index + 1] = secretFile
            }
            let result = try await Subprocess.run(
                [authctl, "--socket", directory.appending("no-daemon.sock")] + words,
                environment: ["PATH": "/usr/bin:/bin"], directory: directory.path)
            #expect(result.status == 69, "authctl refused a providers.md line (exit \(result.status)): \(line)\n\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    /// The rows of the hand-written coverage table (`coverage:begin` … `coverage:end`):
    /// provider → the suite names in its brackets.
    static func coverageRows(in markdown: String) -> [String: [String]] {
        guard let begin = markdown.range(of: "<!-- coverage:begin"), let end = markdown.range(of: "<!-- coverage:end -->") else {
            return [:]
        }
        var rows: [String: [String]] = [:]
        for line in markdown[begin.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let provider = cells.first, provider != "Provider", !provider.hasPrefix("---") else { continue }
            rows[provider] = line.matches(of: /\[([A-Za-z, ]+)\]/).flatMap { match in
                match.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }
        return rows
    }

    /// Names of the `struct NAME` declarations under Tests/ (every suite is one).
    static func testStructs() throws -> Set<String> {
        let root = ChildProcess.repositoryRoot + "/Tests"
        var names: Set<String> = []
        guard let files = FileManager.default.enumerator(atPath: root) else { return names }
        for case let path as String in files where path.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            names.formUnion(text.matches(of: /struct ([A-Za-z0-9_]+)/).map { String($0.1) })
        }
        return names
    }

    @Test func theCoverageTableCoversEveryProviderAndNamesOnlySuitesThatExist() throws {
        let markdown = try String(contentsOfFile: ChildProcess.repositoryRoot + "/docs/providers.md", encoding: .utf8)
        let rows = Self.coverageRows(in: markdown)
        for provider in Self.providers {
            #expect(
                rows.keys.contains { $0.hasPrefix(provider) }, "docs/providers.md's coverage table has no row for \(provider)")
        }
        let structs = try Self.testStructs()
        for (provider, suites) in rows {
            #expect(!suites.isEmpty, "the coverage row of \(provider) names no test suite in [brackets]")
        }
        let missing = Set(rows.values.flatMap { $0 }).subtracting(structs).sorted()
        #expect(
            missing.isEmpty, "docs/providers.md's coverage table names test suites with no `struct NAME` under Tests/: \(missing)"
        )
    }

    @Test func extractionSeesContinuationLines() {
        let sample = "text\n```sh\nauthctl account add a --issuer https://x \\\n  --client-id c\n```\n```yaml\nx: y\n```\n"
        #expect(Self.commands(in: sample) == ["authctl account add a --issuer https://x --client-id c"])
    }
}
