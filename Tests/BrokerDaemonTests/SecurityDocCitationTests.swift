import Foundation
import Testing

/// docs/security.md backs its promises by naming tests (`[SuiteTests.someTest]`, or a whole suite
/// `SuiteTests`). A renamed or deleted test would leave a promise that only looks backed: every
/// name the doc cites must be a suite declared under Tests/, and a cited test a function of it.
@Suite struct SecurityDocCitationTests {
    /// A cited suite (`FooTests`) and, when given, the test (`FooTests.bar`).
    struct Citation: Hashable, CustomStringConvertible {
        var suite: String
        var test: String?
        var description: String { test.map { "\(suite).\($0)" } ?? suite }
    }

    /// Every `NameTests` or `NameTests.member` in `text` (identifiers only; prose around them is ignored).
    static func citations(in text: String) -> Set<Citation> {
        var found = Set<Citation>()
        let words = text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") })
        for word in words {
            let parts = word.split(separator: ".", omittingEmptySubsequences: false)
            guard let first = parts.first, first.hasSuffix("Tests"), first.count > "Tests".count,
                first.first?.isUppercase == true
            else { continue }
            let member = parts.count > 1 && !parts[1].isEmpty ? String(parts[1]) : nil
            found.insert(Citation(suite: String(first), test: member))
        }
        return found
    }

    /// The Swift sources under Tests/ that declare or extend each type name, or are named after it
    /// (a file of free `@Test` functions is cited by its name).
    static func declarations(under root: String) throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root + "/Tests")
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: root + "/Tests/" + path, encoding: .utf8)
            let fileName = String(path.split(separator: "/").last!.dropLast(".swift".count))
            if fileName.hasSuffix("Tests") { result[fileName, default: []].append(text) }
            for keyword in ["struct ", "class ", "enum ", "extension "] {
                for piece in text.components(separatedBy: keyword).dropFirst() {
                    let name = String(piece.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
                    if name.hasSuffix("Tests") { result[name, default: []].append(text) }
                }
            }
        }
        return result
    }

    @Test func citationsAreFoundInProse() {
        let text = "backed [FooTests.barBaz, QuxTests] and (`ZedTests`); not Tests nor fooTests.x"
        #expect(
            Self.citations(in: text) == [
                Citation(suite: "FooTests", test: "barBaz"), Citation(suite: "QuxTests", test: nil),
                Citation(suite: "ZedTests", test: nil),
            ])
    }

    @Test func everyTestTheSecurityDocCitesExists() throws {
        let root = SystemdUnitsDocTests.root
        let doc = try String(contentsOfFile: root + "/docs/security.md", encoding: .utf8)
        let cited = Self.citations(in: doc)
        #expect(cited.count > 50, "the doc cites its tests; the scan found only \(cited.count)")
        let declared = try Self.declarations(under: root)
        for citation in cited.sorted(by: { $0.description < $1.description }) {
            guard let sources = declared[citation.suite] else {
                Issue.record("docs/security.md cites \(citation), but no suite \(citation.suite) is declared under Tests/")
                continue
            }
            if let test = citation.test {
                #expect(
                    sources.contains { $0.contains("func \(test)(") || $0.contains("func `\(test)`(") },
                    "docs/security.md cites \(citation), but \(citation.suite) has no test \(test)")
            }
        }
    }
}
