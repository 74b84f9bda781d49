import BrokerProtocol
import Foundation
import Testing

@testable import AuthctlCommands

/// docs/providers.md is checked against the preset table (`ProviderPreset.all`): the table block
/// between its markers is generated from the rows and must be current, and each preset's section
/// shows an `account add --provider NAME` line with the preset's required options. A failure prints
/// the block to paste.
@Suite struct ProviderPresetDocsTests {
    static let begin = "<!-- presets:begin (generated from ProviderPreset.all; ProviderPresetDocsTests checks it) -->"
    static let end = "<!-- presets:end -->"

    static func providersDoc() throws -> String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return try String(contentsOfFile: url.path + "/docs/providers.md", encoding: .utf8)
    }

    /// The markdown table of every row: what `--provider NAME` fills in.
    static func table() -> String {
        var lines = [
            "| Preset | Needs | Issuer | Scopes | Parameters | Endpoints | Redirect |",
            "| --- | --- | --- | --- | --- | --- | --- |",
        ]
        for preset in ProviderPreset.all {
            let needs = (["--client-id ID"] + preset.options.map(\.usage)).map { "`\($0)`" }.joined(separator: " ")
            let issuer: String
            switch preset.issuer {
            case .template(let template): issuer = "`\(template)`"
            case .fromDiscoveryDocument: issuer = "the document's (`\(preset.discoveryURL ?? "")`)"
            }
            let scopes = preset.scopes.isEmpty ? "none" : "`" + preset.scopes.joined(separator: " ") + "`"
            var parameters = preset.parameters.sorted { $0.key < $1.key }.map { "`\($0.key)=\($0.value)`" }
            if let format = preset.tokenRequestFormat { parameters.append("token request \(format.rawValue)") }
            if let method = preset.tokenEndpointAuthMethod { parameters.append("secret by \(method.rawValue)") }
            let endpoints =
                preset.endpoints.isEmpty
                ? "discovery" + (preset.discoveryURL.map { _ in " (other URL)" } ?? "")
                : "manual: " + preset.endpoints.configured.map(\.key).sorted().joined(separator: ", ")
            let redirect = preset.redirectURI.map { "`\($0)`" } ?? "loopback, \(preset.redirectHost ?? "127.0.0.1")"
            let cells = [
                "[`\(preset.name)`](#\(preset.docsAnchor))", needs, issuer, scopes,
                parameters.isEmpty ? "—" : parameters.joined(separator: " "), endpoints, redirect,
            ]
            lines.append("| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    @Test func theTableInProvidersDocIsGeneratedFromTheRows() throws {
        let markdown = try Self.providersDoc()
        let start = try #require(markdown.range(of: Self.begin), "docs/providers.md lacks the line \(Self.begin)")
        let stop = try #require(markdown.range(of: Self.end, range: start.upperBound..<markdown.endIndex))
        let block = markdown[start.upperBound..<stop.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(block == Self.table(), "docs/providers.md's preset table is stale; replace it with:\n\(Self.table())")
    }

    /// Each preset's own section (`docsAnchor`) shows the preset in use, with every option it needs.
    @Test func eachSectionUsesItsPresetWithTheRequiredOptions() throws {
        let markdown = try Self.providersDoc()
        var sections: [String: String] = [:]
        var anchor = ""
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { anchor = ProviderPresetTests.anchor(String(line.dropFirst(3))) }
            sections[anchor, default: ""] += line.hasSuffix("\\") ? String(line.dropLast()) : line + "\n"
        }
        for preset in ProviderPreset.all {
            let lines = (sections[preset.docsAnchor] ?? "").split(separator: "\n")
                .filter { $0.hasPrefix("authctl account add ") && $0.contains("--provider \(preset.name) ") }
            try #require(
                !lines.isEmpty, "section #\(preset.docsAnchor) has no `authctl account add … --provider \(preset.name)` line")
            for option in preset.options where option.defaultValue == nil {
                #expect(
                    lines.allSatisfy { $0.contains(option.flag + " ") },
                    "#\(preset.docsAnchor): a --provider \(preset.name) line lacks \(option.flag)")
            }
        }
    }

    @Test func theGeneratedTableHasOneRowPerPresetAndEscapesBars() {
        let rows = Self.table().split(separator: "\n").dropFirst(2)
        #expect(rows.count == ProviderPreset.all.count)
        #expect(Self.table().contains("ID\\|organizations"), "a tenant's example must not split the row")
        for row in rows {
            #expect(row.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count == 8, "\(row)")
        }
    }
}
