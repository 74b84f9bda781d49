/// Serializes a `JSONValue`: object names sorted by UTF-8 bytes, `/` not escaped, control characters
/// as `\n`-style or `\u00XX` escapes, everything else (including non-ASCII) as raw UTF-8.
///
/// The pretty form matches FoundationEssentials' `[.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]`
/// byte for byte (2-space indent, `"name" : value`, empty containers as `[`, blank line, `]`), so
/// `authctl … --json` prints what it printed before it dropped Foundation.
struct JSONWriter {
    private(set) var output: [UInt8] = []
    private let pretty: Bool
    private var indent = 0

    init(pretty: Bool) { self.pretty = pretty }

    mutating func write(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .number(let literal): output.append(contentsOf: literal.utf8)
        case .string(let text): writeString(text)
        case .array(let elements):
            writeContainer(open: "[", close: "]", count: elements.count) { writer, position in
                writer.write(elements[position])
            }
        case .object(let members):
            let names = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            writeContainer(open: "{", close: "}", count: names.count) { writer, position in
                writer.writeString(names[position])
                writer.append(writer.pretty ? " : " : ":")
                writer.write(members[names[position]]!)
            }
        }
    }

    private mutating func writeContainer(
        open: StaticString, close: StaticString, count: Int, element: (inout JSONWriter, Int) -> Void
    ) {
        append(open)
        guard pretty else {
            for position in 0..<count {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                element(&self, position)
            }
            append(close)
            return
        }
        indent += 1
        output.append(0x0A)
        for position in 0..<count {
            if position > 0 { append(",\n") }
            writeIndent()
            element(&self, position)
        }
        indent -= 1
        output.append(0x0A)
        writeIndent()
        append(close)
    }

    private mutating func writeIndent() {
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private mutating func append(_ text: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func writeString(_ text: String) {
        // Scanned and copied on the string's contiguous UTF-8, runs without escapes in one piece:
        // iterating `text.utf8` cost ≈ 20 instructions a byte, and a proof's answer carries two
        // long base64url strings (docs/BENCHMARKS-archive.md,
        // "DPoP proofs: the rest of the proof's own CPU").
        var text = text
        text.withUTF8 { writeEscaped($0) }
    }

    private mutating func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        output.append(UInt8(ascii: "\""))
        var runStart = 0
        for index in bytes.indices {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            escape(byte)
            runStart = index + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        output.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): append("\\\"")
        case UInt8(ascii: "\\"): append("\\\\")
        case 0x0A: append("\\n")
        case 0x0D: append("\\r")
        case 0x09: append("\\t")
        case 0x08: append("\\b")
        case 0x0C: append("\\f")
        default:
            append("\\u00")
            output.append(Self.hexDigits[Int(byte >> 4)])
            output.append(Self.hexDigits[Int(byte & 0x0F)])
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
