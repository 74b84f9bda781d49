/// Where the members and elements of a parsed document start, for messages about a file a person
/// wrote (`authctl account apply`: "accounts.json:7:9: unknown key …"). Filled by the parser in one
/// pass (`WireJSON.parseMapped`); kept as a tree of (parent, key, offset) entries rather than
/// full path strings, so its size is bounded by the document's own (a deep path is not copied for
/// each of its members).
public struct JSONSourceMap: Sendable {
    /// One step of a path: an object member's name or an array element's index.
    public enum Component: Hashable, Sendable {
        case name(String)
        case index(Int)
    }

    struct Entry: Sendable {
        var parent: Int  // -1: the top-level value
        var key: Component
        var offset: Int  // of the member's name (its opening quote), or of the element
    }

    var entries: [Entry] = []
    /// Byte offsets at which each line starts (line 1 at 0).
    let lineStarts: [Int]
    let bytes: [UInt8]

    init(bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == 0x0A { starts.append(offset + 1) }
        lineStarts = starts
    }

    mutating func record(parent: Int, key: Component, offset: Int) -> Int {
        entries.append(Entry(parent: parent, key: key, offset: offset))
        return entries.count - 1
    }

    /// The byte offset where `path` starts, nil when the document has no such member or element.
    public func offset(of path: [Component]) -> Int? {
        var parent = -1
        var offset: Int?
        for component in path {
            guard let found = entries.indices.first(where: { entries[$0].parent == parent && entries[$0].key == component })
            else { return nil }
            parent = found
            offset = entries[found].offset
        }
        return offset
    }

    /// Where `path` starts, or its nearest ancestor that the document has (a missing member is
    /// reported where its object starts); line 1 column 1 for the top level.
    public func position(of path: [Component]) -> TextPosition {
        var path = path
        while !path.isEmpty {
            if let offset = offset(of: path) { return position(ofOffset: offset) }
            path.removeLast()
        }
        return TextPosition(line: 1, column: 1)
    }

    /// Line and column (both from 1; columns count characters, not bytes) of a byte offset.
    public func position(ofOffset offset: Int) -> TextPosition {
        TextPosition(offset: offset, lineStarts: lineStarts, bytes: bytes)
    }

    /// `accounts[0].scopes` as components; a name holding `.` or `[` cannot be told apart (messages only).
    public static func components(of path: String) -> [Component] {
        var components: [Component] = []
        for part in path.split(separator: ".", omittingEmptySubsequences: true) {
            var name = Substring(part)
            var indices: [Int] = []
            while name.last == "]", let open = name.lastIndex(of: "["),
                let index = Int(name[name.index(after: open)..<name.index(before: name.endIndex)])
            {
                indices.insert(index, at: 0)
                name = name[..<open]
            }
            if !name.isEmpty { components.append(.name(String(name))) }
            components += indices.map(Component.index)
        }
        return components
    }

    /// The path as `CodingPathText` renders a coding path: `accounts[0].scopes`.
    public static func text(of path: [Component]) -> String {
        var text = ""
        for component in path {
            switch component {
            case .index(let index): text += "[\(index)]"
            case .name(let name): text += text.isEmpty ? name : "." + name
            }
        }
        return text
    }
}

/// A place in a text file, as compilers and editors show it: `7:9` (line 7, column 9).
public struct TextPosition: Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The position of byte `offset` in `bytes` (clamped to the text; columns count UTF-8 lead bytes).
    public init(offset: Int, in bytes: [UInt8]) {
        var starts = [0]
        for (index, byte) in bytes.prefix(max(0, offset)).enumerated() where byte == 0x0A { starts.append(index + 1) }
        self.init(offset: offset, lineStarts: starts, bytes: bytes)
    }

    init(offset: Int, lineStarts: [Int], bytes: [UInt8]) {
        let offset = min(max(0, offset), bytes.count)
        var line = 0
        var low = 0
        var high = lineStarts.count - 1
        while low <= high {  // the last line start at or before offset
            let middle = (low + high) / 2
            if lineStarts[middle] <= offset {
                line = middle
                low = middle + 1
            } else {
                high = middle - 1
            }
        }
        let characters = bytes[lineStarts[line]..<offset].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        self.init(line: line + 1, column: characters + 1)
    }

    public var description: String { "\(line):\(column)" }
}
