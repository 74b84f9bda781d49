import BrokerProtocol
import Foundation
import Testing

@testable import AuthctlCommands

/// authctl(1)'s EXIT STATUS table against the code: the codes scripts rely on are `ExitCode.all`,
/// no more and no fewer, and each wire error maps to one of them.
@Suite struct ExitCodeTableTests {
    /// The `.TP` / `.B N` entries of the man page's EXIT STATUS section.
    static func manPageCodes() throws -> [Int32] {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        let page = try String(contentsOfFile: url.path + "/docs/authctl.1", encoding: .utf8)
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: ".SH EXIT STATUS") else { return [] }
        let section = lines[(start + 1)...].prefix { !$0.hasPrefix(".SH ") }
        return zip(section, section.dropFirst()).compactMap { first, second in
            first == ".TP" && second.hasPrefix(".B ") ? Int32(second.dropFirst(3)) : nil
        }
    }

    @Test func theManPageListsExactlyTheExitCodes() throws {
        let documented = try Self.manPageCodes()
        #expect(documented.count >= 6, "no EXIT STATUS table found in docs/authctl.1")
        #expect(documented == ExitCode.all.sorted(), "docs/authctl.1 lists \(documented), ExitCode.all is \(ExitCode.all)")
    }

    @Test func everyWireErrorExitsWithADocumentedCode() {
        for code in WireErrorCode.allCases {
            #expect(ExitCode.all.contains(code.exitCode), "\(code) exits \(code.exitCode)")
        }
        #expect(WireErrorCode.invalidRequest.exitCode == ExitCode.usage)
    }
}
