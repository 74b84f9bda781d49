import Testing
import TestSupport

/// Package.swift's `daemonLinkerSettings` (docs/BENCHMARKS.md, "Daemon idle"): the daemon's
/// relative relocations are packed (DT_RELR) instead of 41,000 24-byte RELA entries that ld.so
/// reads at every start, and it exports none of its own symbols (the dynamic string table held
/// the names of 4,500 of them), and libstdc++ is linked in, not loaded — while it stays a
/// position-independent executable (docs/security.md).
@Suite struct DaemonLinkTests {
    static let relr = 36  // DT_RELR
    static let relaSize = 8  // DT_RELASZ
    static let stringTableSize = 10  // DT_STRSZ
    static let flags1 = 0x6fff_fffb  // DT_FLAGS_1
    static let positionIndependent = 0x0800_0000  // DF_1_PIE

    @Test func theDaemonPacksItsRelocationsAndExportsNoSymbols() throws {
        let entries = Dictionary(try ELFFile(path: ProductBinary.path("authbrokerd")).dynamicEntries()) { first, _ in first }
        #expect(entries[Self.relr] != nil)
        #expect((entries[Self.relaSize] ?? 0) < 64 << 10)
        #expect(try #require(entries[Self.stringTableSize]) < 64 << 10)
        #expect((entries[Self.flags1] ?? 0) & Self.positionIndependent != 0, "still a PIE: ASLR for its own code")
    }

    @Test func theDaemonLoadsNoLibstdcxx() throws {
        let needed = try ELFFile(path: ProductBinary.path("authbrokerd")).neededLibraries()
        #expect(needed.contains("libcrypto.so.3"), "the control: the reader finds the libraries")
        #expect(!needed.contains { $0.hasPrefix("libstdc++") })
    }
}
