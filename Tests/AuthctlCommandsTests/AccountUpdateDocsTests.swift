import BrokerProtocol
import Foundation
import Testing

@testable import AuthctlCommands

/// One list of token-neutral fields (`AccountConfiguration.tokenNeutralFields`): `authctl account
/// --help` prints it, and docs/authctl.1, docs/guide.md and docs/api.md each state it in a
/// paragraph starting "Token-neutral fields"; every `account update` and `apply` option is in the
/// man page and the three completion files.
@Suite struct AccountUpdateDocsTests {
    static func document(_ path: String) throws -> String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return try String(contentsOfFile: url.path + "/" + path, encoding: .utf8)
    }

    static let fontRequests: Set<String> = ["B", "BR", "I", "IR", "BI", "IB", "RB", "RI"]

    /// The paragraph that starts at "Token-neutral fields": its lines up to a blank line or a man
    /// page request other than font changes (.B, .BR, .I, .IR).
    static func tokenNeutralParagraph(in text: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.contains("Token-neutral fields") }) else { return nil }
        var paragraph = [String(lines[start].split(separator: "Token-neutral fields", maxSplits: 1).last ?? "")]
        for line in lines[(start + 1)...] {
            if line.trimmingCharacters(in: .whitespaces).isEmpty { break }
            if line.hasPrefix("."), !fontRequests.contains(String(line.dropFirst().prefix { $0 != " " })) { break }
            paragraph.append(String(line))
        }
        return paragraph.joined(separator: "\n")
    }

    /// The account fields a paragraph names, in order of appearance (every other word is prose).
    static func fields(in paragraph: String) -> [String] {
        let words = paragraph.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
        return words.filter { AccountConfiguration.jsonKeys.contains($0) }
    }

    @Test func helpPrintsTheListInItsOrder() throws {
        let paragraph = try #require(Self.tokenNeutralParagraph(in: AccountCommand.help))
        let listed = paragraph.split(separator: "\n").prefix { !$0.hasPrefix("Not a sandbox") }.joined(separator: " ")
        #expect(Self.fields(in: listed) == AccountConfiguration.tokenNeutralFields, "\(listed)")
        for line in AccountCommand.help.split(separator: "\n") { #expect(line.count <= 100, "\(line)") }
    }

    @Test(arguments: ["docs/authctl.1", "docs/guide.md", "docs/api.md"])
    func eachDocumentStatesTheSameList(_ path: String) throws {
        let paragraph = try #require(
            Self.tokenNeutralParagraph(in: try Self.document(path)), "\(path) has no 'Token-neutral fields' paragraph")
        #expect(Set(Self.fields(in: paragraph)) == Set(AccountConfiguration.tokenNeutralFields), "\(path): \(paragraph)")
    }

    @Test func theListIsTheSetTheDaemonUses() {
        let fields = AccountConfiguration.tokenNeutralFields
        #expect(Set(fields).count == fields.count)
        #expect(Set(fields).union(["name", AccountConfiguration.clientSecretKey]) == AccountConfiguration.tokenNeutralKeys)
        let profile = AccountConfiguration(name: "w", issuer: "https://i", clientID: "c").securityProfile.keys
        #expect(profile.isDisjoint(with: fields))
    }

    @Test func theParagraphIsFoundAndEndsWhereItShould() {
        let man = ".SS x\nToken-neutral fields (a change keeps the tokens):\n.BR browser ,\n.B par .\n.IP\nscopes"
        #expect(Self.fields(in: Self.tokenNeutralParagraph(in: man) ?? "") == ["browser", "par"])
        #expect(Self.tokenNeutralParagraph(in: "nothing here") == nil)
    }

    static func options(_ list: [CommandLineArguments.Option]) -> [String] { list.map(\.name) }

    @Test func theManPageAndCompletionsKnowEveryUpdateAndApplyOption() throws {
        let man = try Self.document("docs/authctl.1").replacingOccurrences(of: "\\-", with: "-")
        let update = Self.options(AccountCommand.updateOptions)
        let apply = Self.options(AccountCommand.applyOptions)
        for option in update + apply {
            #expect(man.contains(option), "docs/authctl.1 does not mention \(option)")
        }
        for file in ["authctl.bash", "_authctl", "authctl.fish"] {
            let text = try Self.document("docs/completions/" + file)
            let words = Set(text.split { !($0.isLetter || $0.isNumber || $0 == "-") }.map(String.init))
            for option in update + apply {
                #expect(words.contains(option) || words.contains(String(option.dropFirst(2))), "\(file) lacks \(option)")
            }
        }
    }
}
