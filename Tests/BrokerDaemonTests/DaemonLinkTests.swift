import Foundation
import TestSupport
import Testing

/// Package.swift's `daemonLinkerSettings` (docs/BENCHMARKS-archive.md, "Daemon idle: the link"): the daemon's
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

    /// The functions `authbrokerd.order` names lie together in the text, as the
    /// link's ordering file asks (Package.swift): the code the daemon runs fills as few pages as it can.
    @Test func theFunctionsTheOrderFileNamesLieTogether() throws {
        let file = SystemdUnitsDocTests.root + "/Sources/authbrokerd/authbrokerd.order"
        let named = Set(
            try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.map(
                String.init))
        let functions = try ELFFile(path: ProductBinary.path("authbrokerd")).functions().filter { $0.size > 0 }
        let ordered = functions.filter { named.contains($0.name) }
        // Tests run a debug build: fewer of the release build's names are in it, still hundreds.
        try #require(ordered.count > 200, "\(ordered.count) of the file's functions are in the binary")
        let start = try #require(ordered.map(\.address).min())
        let span = try #require(ordered.map { $0.address + $0.size }.max()) - start
        let total = ordered.reduce(0) { $0 + $1.size }
        #expect(span < total + total / 2 + 64 << 10, "the named functions span \(span) bytes for \(total) of code")
        let others = functions.filter { !named.contains($0.name) && $0.address >= start && $0.address < start + span }
        #expect(others.reduce(0) { $0 + $1.size } < total / 2, "\(others.count) other functions lie among them")
    }

    /// The order file is made from a release build (bench/order-file.sh), and the linker skips the
    /// names it lacks without a word, so a stale file costs resident memory silently. This build is
    /// a debug one, whose specializations, async continuations and thunks are not the release
    /// build's: the check is on the project's own plain functions, which both builds define alike.
    /// A function renamed, moved or given another signature since the file was made is missing.
    @Test func theOrderFileIsNotStale() throws {
        let file = SystemdUnitsDocTests.root + "/Sources/authbrokerd/authbrokerd.order"
        let named = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init).filter(
            Self.isPlainOwnFunction)
        let defined = Set(try ELFFile(path: ProductBinary.path("authbrokerd")).functions().map(\.name))
        let missing = named.filter { !defined.contains($0) }
        try #require(named.count > 200, "only \(named.count) of the project's own functions in the order file")
        #expect(
            missing.count * 100 <= named.count * Self.staleOrderPercent,
            """
            \(missing.count) of the \(named.count) plain functions Sources/authbrokerd/authbrokerd.order names are no longer \
            in authbrokerd (more than \(Self.staleOrderPercent) %): regenerate it with bench/order-file.sh (needs valgrind, \
            builds release), then relink (rm .build/*/authbrokerd). First missing: \(missing.prefix(5).joined(separator: " "))
            """)
    }

    /// Missing names tolerated before the file counts as stale: a few functions change in any branch.
    static let staleOrderPercent = 5

    /// A function of the project's own modules that is neither a specialization, a thunk, an async
    /// continuation nor an outlined copy: mangled `$s<length><Module>…` without those suffixes.
    static func isPlainOwnFunction(_ name: String) -> Bool {
        let modules = ["Broker", "HTTPCodec", "SystemCalls", "JSONLimits", "authbrokerd"]
        guard name.hasPrefix("$s"), let start = name.dropFirst(2).firstIndex(where: { !$0.isNumber }),
            modules.contains(where: { name[start...].hasPrefix($0) })
        else { return false }
        let derived = [
            "Tf", "Tg", "TA", "Tm", "Tq", "TR", "Tu", "TW", "TQ", "TY", "Tt", "TG", "WO", "Wy", "We", "Wl", "Ws", "WZ", "fu",
        ]
        return !derived.contains { name.contains($0) }
    }
}
