/// Edits a freedesktop `mimeapps.list` (MIME Applications Associations spec) as bytes: one key of
/// `[Default Applications]` is set or removed and every other byte — other groups, comments, blank
/// lines, other defaults, CRLF line ends, text that is not UTF-8 — is kept as it was. Pure, so the
/// editing is unit-tested without files (MimeAppsListTests).
///
/// Another application's default for the same MIME type is *replaced* (the old value is returned so
/// the caller can say so): the user asked authctl to handle this scheme, and a list such as
/// `other.desktop;ours.desktop;` would leave the other application in charge.
struct MimeAppsList: Equatable {
    static let defaultsGroup = "[Default Applications]"
    private(set) var bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The desktop file IDs `[Default Applications]` names for `mimeType` (first one wins), or nil.
    func defaults(for mimeType: String) -> [String]? {
        let lines = Self.lines(bytes)
        guard let group = Self.defaultsRange(lines) else { return nil }
        for index in group where Self.key(of: lines[index].text) == mimeType.lowercased() {
            return Self.value(of: lines[index].text).split(separator: ";").map(String.init)
        }
        return nil
    }

    /// Makes `desktopFile` the only default for `mimeType`; returns false when it already was.
    mutating func setDefault(_ mimeType: String, to desktopFile: String) -> Bool {
        if defaults(for: mimeType) == [desktopFile] { return false }
        var lines = Self.lines(bytes)
        let end = Self.lineEnd(lines)
        let entry = Array("\(mimeType)=\(desktopFile)".utf8)
        if let group = Self.defaultsRange(lines) {
            let matches = group.filter { Self.key(of: lines[$0].text) == mimeType.lowercased() }
            if let first = matches.first {
                lines[first].text = entry
                for index in matches.dropFirst().reversed() { lines.remove(at: index) }
            } else {
                let lastKey = group.last { Self.key(of: lines[$0].text) != nil } ?? group.lowerBound - 1
                if lastKey + 1 == lines.count { Self.terminateLastLine(&lines, with: end) }
                lines.insert(Line(text: entry, end: end), at: lastKey + 1)
            }
        } else {
            Self.terminateLastLine(&lines, with: end)
            if let last = lines.last, !last.text.allSatisfy(Self.isBlank) { lines.append(Line(text: [], end: end)) }
            lines.append(Line(text: Array(Self.defaultsGroup.utf8), end: end))
            lines.append(Line(text: entry, end: end))
        }
        bytes = Self.join(lines)
        return true
    }

    /// Removes `mimeType`'s default when it names `desktopFile` (only then: another application's
    /// default is not ours to remove); returns whether anything changed.
    mutating func removeDefault(_ mimeType: String, ifItIs desktopFile: String) -> Bool {
        var lines = Self.lines(bytes)
        guard let group = Self.defaultsRange(lines) else { return false }
        let ours = group.filter {
            Self.key(of: lines[$0].text) == mimeType.lowercased()
                && Self.value(of: lines[$0].text).split(separator: ";").first.map(String.init) == desktopFile
        }
        guard !ours.isEmpty else { return false }
        for index in ours.reversed() { lines.remove(at: index) }
        bytes = Self.join(lines)
        return true
    }

    // MARK: lines

    /// One line: its text and its own line end (`\n`, `\r\n`, or none for a last unterminated line).
    struct Line: Equatable {
        var text: [UInt8]
        var end: [UInt8]
    }

    static func lines(_ bytes: [UInt8]) -> [Line] {
        var result: [Line] = []
        var start = 0
        while start < bytes.count {
            guard let newline = bytes[start...].firstIndex(of: 10) else {
                result.append(Line(text: Array(bytes[start...]), end: []))
                break
            }
            let crlf = newline > start && bytes[newline - 1] == 13
            result.append(Line(text: Array(bytes[start..<(crlf ? newline - 1 : newline)]), end: crlf ? [13, 10] : [10]))
            start = newline + 1
        }
        return result
    }

    static func join(_ lines: [Line]) -> [UInt8] { lines.flatMap { $0.text + $0.end } }

    /// The file's own line end (its first line's), so an added line matches a CRLF file.
    static func lineEnd(_ lines: [Line]) -> [UInt8] { lines.first { !$0.end.isEmpty }?.end ?? [10] }

    static func terminateLastLine(_ lines: inout [Line], with end: [UInt8]) {
        if let last = lines.indices.last, lines[last].end.isEmpty { lines[last].end = end }
    }

    /// The line indices of the first `[Default Applications]` group's body (after its header).
    static func defaultsRange(_ lines: [Line]) -> Range<Int>? {
        guard let header = lines.firstIndex(where: { trimmed($0.text) == Array(defaultsGroup.utf8) }) else { return nil }
        let next = lines[(header + 1)...].firstIndex { trimmed($0.text).first == UInt8(ascii: "[") } ?? lines.count
        return (header + 1)..<next
    }

    /// The key of a `key=value` line, lowercased (MIME types are case-insensitive), or nil for a
    /// comment, blank or malformed line.
    static func key(of text: [UInt8]) -> String? {
        let line = trimmed(text)
        guard let equals = line.firstIndex(of: UInt8(ascii: "=")), line.first != UInt8(ascii: "#") else { return nil }
        return String(decoding: trimmed(Array(line[..<equals])), as: UTF8.self).lowercased()
    }

    static func value(of text: [UInt8]) -> String {
        guard let equals = text.firstIndex(of: UInt8(ascii: "=")) else { return "" }
        return String(decoding: trimmed(Array(text[(equals + 1)...])), as: UTF8.self)
    }

    static func isBlank(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 }

    static func trimmed(_ text: [UInt8]) -> [UInt8] {
        Array(text.drop(while: isBlank).reversed().drop(while: isBlank).reversed())
    }
}
