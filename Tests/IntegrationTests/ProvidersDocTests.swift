import Foundation
import Testing
import TestSupport

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
            if line.hasPrefix("## ") { heading = String(line.dropFirst(3)); continue }
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
            #expect(!line.contains("\"") && !line.contains("'") && !line.contains("$"), "keep doc lines free of shell quoting: \(line)")
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

    @Test func extractionSeesContinuationLines() {
        let sample = "text\n```sh\nauthctl account add a --issuer https://x \\\n  --client-id c\n```\n```yaml\nx: y\n```\n"
        #expect(Self.commands(in: sample) == ["authctl account add a --issuer https://x --client-id c"])
    }
}
