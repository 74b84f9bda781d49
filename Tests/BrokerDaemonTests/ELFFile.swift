import Foundation
import Testing

/// The parts of a little-endian ELF64 file the link tests read: program headers, the entries of
/// the dynamic section, and the functions of the symbol table.
struct ELFFile {
    struct ProgramHeader {
        var type: UInt32
        var offset: Int
        var address: Int
        var fileSize: Int
    }

    static let interpreter: UInt32 = 3  // PT_INTERP
    static let dynamic: UInt32 = 2  // PT_DYNAMIC
    static let load: UInt32 = 1  // PT_LOAD
    static let needed = 1  // DT_NEEDED
    static let stringTable = 5  // DT_STRTAB

    private let bytes: [UInt8]

    init(path: String) throws {
        bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(bytes.count > 64 && bytes[0..<4] == [0x7F, 0x45, 0x4C, 0x46] && bytes[4] == 2 && bytes[5] == 1)
    }

    private func integer(_ offset: Int, _ size: Int) -> Int {
        (0..<size).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
    }

    func programHeaders() throws -> [ProgramHeader] {
        let (offset, size, count) = (integer(32, 8), integer(54, 2), integer(56, 2))
        try #require(count > 0 && size >= 56 && offset + size * count <= bytes.count)
        return (0..<count).map { index in
            let header = offset + index * size
            return ProgramHeader(
                type: UInt32(integer(header, 4)), offset: integer(header + 8, 8), address: integer(header + 16, 8),
                fileSize: integer(header + 32, 8))
        }
    }

    /// (tag, value) of each entry of the PT_DYNAMIC segment, up to DT_NULL.
    func dynamicEntries() throws -> [(tag: Int, value: Int)] {
        let segment = try #require(try programHeaders().first { $0.type == Self.dynamic })
        try #require(segment.offset + segment.fileSize <= bytes.count)
        var entries: [(tag: Int, value: Int)] = []
        for entry in stride(from: segment.offset, to: segment.offset + segment.fileSize - 15, by: 16) {
            let tag = integer(entry, 8)
            if tag == 0 { break }
            entries.append((tag, integer(entry + 8, 8)))
        }
        return entries
    }

    /// The shared libraries the file names as DT_NEEDED.
    func neededLibraries() throws -> [String] {
        let entries = try dynamicEntries()
        let table = try #require(entries.first { $0.tag == Self.stringTable }).value
        let segment = try #require(
            try programHeaders().first { $0.type == Self.load && $0.address <= table && table < $0.address + $0.fileSize })
        let start = segment.offset + table - segment.address
        return try entries.filter { $0.tag == Self.needed }.map { entry in
            let first = start + entry.value
            let end = try #require(bytes[first...].firstIndex(of: 0))
            return String(decoding: bytes[first..<end], as: UTF8.self)
        }
    }

    /// A function of the symbol table (`.symtab`): where it sits and how long it is.
    struct Function {
        var name: String
        var address: Int
        var size: Int
    }

    /// Every defined function (STT_FUNC) of the file's symbol table.
    func functions() throws -> [Function] {
        let (offset, size, count) = (integer(40, 8), integer(58, 2), integer(60, 2))
        try #require(count > 0 && size >= 64 && offset + size * count <= bytes.count)
        let sections = (0..<count).map { offset + $0 * size }
        let symbolTable = try #require(sections.first { integer($0 + 4, 4) == 2 }, "no .symtab: the binary is stripped")  // SHT_SYMTAB
        let strings = sections[integer(symbolTable + 40, 4)]  // sh_link
        let (stringsStart, symbolsStart) = (integer(strings + 24, 8), integer(symbolTable + 24, 8))
        let symbolsEnd = symbolsStart + integer(symbolTable + 32, 8)
        try #require(symbolsEnd <= bytes.count)
        return try stride(from: symbolsStart, to: symbolsEnd - 23, by: 24).compactMap { symbol in
            guard bytes[symbol + 4] & 0x0F == 2, integer(symbol + 6, 2) != 0 else { return nil }  // STT_FUNC, defined
            let first = stringsStart + integer(symbol, 4)
            let end = try #require(bytes[first...].firstIndex(of: 0))
            return Function(
                name: String(decoding: bytes[first..<end], as: UTF8.self), address: integer(symbol + 8, 8),
                size: integer(symbol + 16, 8))
        }
    }
}
