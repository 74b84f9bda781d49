import Foundation
import Testing
import TestSupport

/// docs/security.md: "`authctl` is linked as a static executable (no dynamic loader)". A static
/// ELF has no PT_INTERP program header; the daemon, linked dynamically, has one (the control that
/// shows the reader works).
@Suite struct StaticAuthctlTests {
    @Test func authctlHasNoDynamicLoaderAndTheDaemonHasOne() throws {
        #expect(try Self.programHeaderTypes(ProductBinary.path("authctl")).contains(Self.interpreter) == false)
        #expect(try Self.programHeaderTypes(ProductBinary.path("authbrokerd")).contains(Self.interpreter))
    }

    static let interpreter: UInt32 = 3  // PT_INTERP

    /// The `p_type` of every program header of a little-endian ELF64 file.
    static func programHeaderTypes(_ path: String) throws -> [UInt32] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(bytes.count > 64 && bytes[0..<4] == [0x7F, 0x45, 0x4C, 0x46] && bytes[4] == 2 && bytes[5] == 1)
        func integer(_ offset: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
        }
        let (offset, size, count) = (integer(32, 8), integer(54, 2), integer(56, 2))
        try #require(count > 0 && offset + size * count <= bytes.count)
        return (0..<count).map { UInt32(integer(offset + $0 * size, 4)) }
    }
}
