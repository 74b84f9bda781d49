import Foundation
import Testing

/// docs/DEVELOPING.md's map must stay true: its module table is Package.swift's targets and their
/// exact dependencies, its tests table names every other target, and its threads table names types
/// that exist. Everything is read from the doc and the manifest, so a new or renamed module is a
/// change of the table's rows, not of this test. And every section that a comment cites by name
/// (`docs/NAME.md, "Section"`) is a heading of that doc.
@Suite struct DevelopingDocTests {
    static let root = SystemdUnitsDocTests.root

    /// One target of Package.swift: its kind (`target`, `testTarget`, …), name and dependencies.
    struct Target: Equatable {
        var kind: String
        var name: String
        var dependencies: [String]
    }

    /// The targets Package.swift declares, read from its text (each `.kind(` to its closing paren).
    static func targets(inManifest text: String) -> [Target] {
        var found: [Target] = []
        let characters = Array(text)
        for kind in ["target", "executableTarget", "testTarget", "systemLibrary"] {
            var searchFrom = text.startIndex
            while let opening = text.range(of: ".\(kind)(", range: searchFrom..<text.endIndex) {
                searchFrom = opening.upperBound
                var depth = 1
                var index = text.distance(from: text.startIndex, to: opening.upperBound)
                let start = index
                while index < characters.count, depth > 0 {
                    if characters[index] == "(" { depth += 1 } else if characters[index] == ")" { depth -= 1 }
                    index += 1
                }
                let body = String(characters[start..<max(start, index - 1)])
                guard let name = quoted(after: "name:", in: body).first else { continue }
                var dependencies: [String] = []
                if let list = body.range(of: "dependencies:"), let close = body[list.upperBound...].firstIndex(of: "]") {
                    dependencies = quotedStrings(in: String(body[list.upperBound..<close]))
                }
                found.append(Target(kind: kind, name: name, dependencies: dependencies))
            }
        }
        return found
    }

    static func quoted(after label: String, in text: String) -> [String] {
        guard let range = text.range(of: label) else { return [] }
        return quotedStrings(in: String(text[range.upperBound...]))
    }

    static func quotedStrings(in text: String) -> [String] {
        text.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }

    /// The rows of the Markdown table whose header line starts with `header`, as cells.
    static func table(startingWith header: String, in doc: String) -> [[String]] {
        let lines = doc.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix(header) }) else { return [] }
        return lines[(start + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    /// The `code spans` of a table cell.
    static func codeSpans(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element) }
    }

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
    }

    @Test func theManifestReaderFindsTargetsAndTheirDependencies() {
        let manifest = """
            .target(name: "A", dependencies: ["B", "C"], swiftSettings: [x(["-y"])]),
            .systemLibrary(name: "B", path: "Sources/B", providers: [.apt(["b-dev"])]),
            .testTarget(
                name: "ATests",
                dependencies: ["A"], exclude: ["Fixtures"]),
            """
        #expect(
            Self.targets(inManifest: manifest) == [
                Target(kind: "target", name: "A", dependencies: ["B", "C"]),
                Target(kind: "testTarget", name: "ATests", dependencies: ["A"]),
                Target(kind: "systemLibrary", name: "B", dependencies: []),
            ])
    }

    /// Backs the map's module table: one row per directory of Sources/, each a target whose
    /// dependencies are exactly the row's "imports".
    @Test func theModuleTableIsPackageSwiftsModulesAndTheirDependencies() throws {
        let targets = Self.targets(inManifest: try Self.read("Package.swift"))
        try #require(targets.count > 20, "read only \(targets.count) targets from Package.swift")
        let rows = Self.table(startingWith: "| module | imports |", in: try Self.read("docs/DEVELOPING.md"))
        try #require(rows.count > 10, "no module table ('| module | imports |') in docs/DEVELOPING.md")
        var documented: [String: Set<String>] = [:]
        for row in rows {
            let name = try #require(Self.codeSpans(row[0]).first, "a module table row without a `name`: \(row)")
            documented[name] = Set(Self.codeSpans(row[1]))
        }
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/Sources").filter { !$0.hasPrefix(".") }
        #expect(Set(documented.keys) == Set(modules), "the module table's rows are not the directories of Sources/")
        for (name, imports) in documented.sorted(by: { $0.key < $1.key }) {
            guard let target = targets.first(where: { $0.name == name }) else {
                Issue.record("docs/DEVELOPING.md's module table has \(name), which Package.swift does not declare")
                continue
            }
            #expect(
                imports == Set(target.dependencies),
                "docs/DEVELOPING.md says \(name) imports \(imports.sorted()); Package.swift gives it \(target.dependencies.sorted())"
            )
        }
    }

    /// Backs the map's tests table: every target that is not a module is named there, and every
    /// name there is a target or a directory.
    @Test func everyTestAndHelperTargetIsOnTheMap() throws {
        let targets = Self.targets(inManifest: try Self.read("Package.swift"))
        let doc = try Self.read("docs/DEVELOPING.md")
        let modules = Set(Self.table(startingWith: "| module | imports |", in: doc).compactMap { Self.codeSpans($0[0]).first })
        let named = Set(Self.table(startingWith: "| target | what |", in: doc).flatMap { Self.codeSpans($0[0]) })
        try #require(!named.isEmpty, "no tests table ('| target | what |') in docs/DEVELOPING.md")
        for target in targets where !modules.contains(target.name) {
            #expect(named.contains(target.name), "docs/DEVELOPING.md's tests table lacks the target \(target.name)")
        }
        for name in named where !targets.contains(where: { $0.name == name }) {
            #expect(
                FileManager.default.fileExists(atPath: Self.root + "/" + name),
                "docs/DEVELOPING.md's tests table names \(name), which is neither a target nor a path")
        }
    }

    /// The Swift sources under Sources/ that declare or extend each type name.
    static func declarations() throws -> [String: [String]] {
        var result: [String: [String]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root + "/Sources")
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            let text = try read("Sources/" + path)
            for keyword in ["class ", "struct ", "enum ", "actor ", "extension "] {
                for piece in text.components(separatedBy: keyword).dropFirst() {
                    let name = String(piece.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
                    if !name.isEmpty { result[name, default: []].append(text) }
                }
            }
        }
        return result
    }

    /// Backs the threads table: each `Type` or `Type.member` it says starts a thread is declared
    /// under Sources/ (the member in a file that declares or extends the type).
    @Test func theThreadsTableNamesTypesThatExist() throws {
        let rows = Self.table(startingWith: "| thread | started by |", in: try Self.read("docs/DEVELOPING.md"))
        try #require(rows.count >= 10, "no threads table ('| thread | started by |') in docs/DEVELOPING.md")
        let declared = try Self.declarations()
        for row in rows {
            let names = Self.codeSpans(row[1])
            #expect(!names.isEmpty, "the threads table's row '\(row[0])' names no type")
            for name in names {
                let parts = name.split(separator: ".").map(String.init)
                guard let sources = declared[parts[0]] else {
                    Issue.record("the threads table names \(parts[0]), which no file under Sources/ declares")
                    continue
                }
                if parts.count > 1 {
                    #expect(
                        sources.contains { $0.contains("func \(parts[1])(") || $0.contains("func \(parts[1])<") },
                        "the threads table names \(name), but \(parts[0]) has no function \(parts[1])")
                }
            }
        }
    }

    /// A citation of a doc's section: the doc's path and the section's name.
    struct Citation: Hashable {
        var doc: String
        var section: String
        var file: String
    }

    /// Every `docs/NAME.md, "Section"` in `text`, comment markers and line breaks removed first.
    static func citations(in text: String, file: String) -> [Citation] {
        let joined = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var rest = line.drop { $0 == " " }
            while let first = rest.first, first == "/" || first == "#" { rest = rest.dropFirst() }
            return rest.trimmingCharacters(in: .whitespaces)
        }.joined(separator: " ")
        var found: [Citation] = []
        var searchFrom = joined.startIndex
        while let match = joined.range(
            of: #"docs/[A-Za-z0-9_-]+\.md,? "[^"]+""#, options: .regularExpression, range: searchFrom..<joined.endIndex)
        {
            searchFrom = match.upperBound
            let cited = joined[match]
            let doc = String(cited.prefix { $0 != "," && $0 != " " })
            let section = String(cited.split(separator: "\"")[1])
            found.append(Citation(doc: doc, section: section, file: file))
        }
        return found
    }

    /// The section `name` of `doc`'s headings: the one equal to it, else the only one starting with it.
    static func section(_ name: String, inHeadings headings: [String]) -> String? {
        if headings.contains(name) { return name }
        let starting = headings.filter { $0.hasPrefix(name) }
        return starting.count == 1 ? starting[0] : nil
    }

    /// Whether `doc` has what a citation names: a section (`section(_:inHeadings:)`), a bold label
    /// (`**Name**`, `**Name.**`), or, for a quotation (five words or more), the quoted words.
    static func finds(_ name: String, in doc: String) -> Bool {
        let headings = doc.split(separator: "\n").filter { $0.hasPrefix("#") }
            .map { $0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces) }
        if section(name, inHeadings: headings) != nil || doc.contains("**" + name) { return true }
        let words = { (text: String) in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) }
        return words(name).count >= 5 && words(doc).joined(separator: " ").contains(words(name).joined(separator: " "))
    }

    @Test func citationsAreFoundAcrossCommentLines() {
        let text = """
            /// a figure (docs/BENCHMARKS.md, "Daemon
            /// idle") and docs/FUZZING.md "Targets"; not docs/BENCHMARKS.md alone
            """
        #expect(Self.citations(in: text, file: "f").map(\.section) == ["Daemon idle", "Targets"])
        #expect(Self.section("Daemon idle", inHeadings: ["Daemon idle: what the memory is", "Daemon footprint"]) != nil)
        #expect(Self.section("Daemon", inHeadings: ["Daemon idle", "Daemon footprint"]) == nil)
        let doc = "# Title\n## Daemon idle: memory\n- **Envelope.** each value is sealed with\nAES-GCM\n"
        #expect(Self.finds("Daemon idle", in: doc) && Self.finds("Envelope", in: doc))
        #expect(Self.finds("each value is sealed with AES-GCM", in: doc))
        #expect(!Self.finds("sealed with", in: doc) && !Self.finds("Daemon footprint", in: doc))
    }

    /// Backs "Comments cite sections by name": each section a source, test, script or doc cites is
    /// a heading (or the start of exactly one) of the doc it names, a bold label, or quoted words of it.
    @Test func everySectionACommentCitesExists() throws {
        var files: [String] = ["Package.swift", "README.md"]
        for directory in ["Sources", "Tests", "bench", "docs"] {
            let enumerator = FileManager.default.enumerator(atPath: Self.root + "/" + directory)
            while let path = enumerator?.nextObject() as? String {
                if [".swift", ".sh", ".md", ".py", ".c"].contains(where: path.hasSuffix), !path.contains("/corpus/") {
                    files.append(directory + "/" + path)
                }
            }
        }
        var citations: [Citation] = []
        for file in files where file != "Tests/BrokerDaemonTests/DevelopingDocTests.swift" {
            citations += Self.citations(in: try Self.read(file), file: file)
        }
        #expect(citations.count > 30, "found only \(citations.count) citations of doc sections")
        var docs: [String: String] = [:]
        for citation in citations {
            if docs[citation.doc] == nil { docs[citation.doc] = (try? Self.read(citation.doc)) ?? "" }
            let found = Self.finds(citation.section, in: docs[citation.doc]!)
            #expect(
                found,
                "\(citation.file) cites \(citation.doc), \"\(citation.section)\": no heading is, or alone starts with, that name (nor a bold label or the quoted words)"
            )
        }
    }
}
