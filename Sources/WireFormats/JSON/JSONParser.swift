/// A strict RFC 8259 parser: no comments, no trailing commas, no leading zeros, no byte order mark,
/// no duplicate object names, no unescaped control characters, valid UTF-8 only, surrogate pairs
/// checked, nesting limited to `WireJSON.maximumDepth`.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    /// Filled only when a source map was asked for (`parse(_:into:)`); `parent` is the entry of
    /// the object or array being parsed.
    private var map: JSONSourceMap?
    private var parent = -1

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses one complete document (any value at top level, surrounded by optional whitespace).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(WireJSONError) -> JSONValue {
        var map: JSONSourceMap?
        return try parse(bytes, into: &map)
    }

    /// As `parse`, recording where each member and element starts in `map` when it is not nil.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, into map: inout JSONSourceMap?) throws(WireJSONError)
        -> JSONValue
    {
        var parser = JSONParser(bytes)
        parser.map = map
        map = nil  // not copied on write while the parser owns it
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected data after the value") }
        map = parser.map
        return value
    }

    /// Parses the value of member or element `key` starting at `offset`, recorded as a child of
    /// the current container when a map is kept.
    private mutating func parseValue(at key: @autoclosure () -> JSONSourceMap.Component, offset: Int)
        throws(WireJSONError) -> JSONValue
    {
        guard map != nil else { return try parseValue() }
        let saved = parent
        parent = map!.record(parent: saved, key: key(), offset: offset)
        defer { parent = saved }
        return try parseValue()
    }

    private func failure(_ reason: String) -> WireJSONError { .syntax(offset: index, reason: reason) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(WireJSONError) -> JSONValue {
        guard let byte = current else { throw failure("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(WireJSONError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count,
            UnsafeBufferPointer(start: literal.utf8Start, count: count).elementsEqual(bytes[index..<index + count])
        else { throw failure("invalid literal") }
        index += count
    }

    private mutating func parseObject() throws(WireJSONError) -> JSONValue {
        var object: [String: JSONValue] = [:]
        try parseElements(close: UInt8(ascii: "}"), name: "object") { parser throws(WireJSONError) in
            guard parser.current == UInt8(ascii: "\"") else { throw parser.failure("expected a quoted name") }
            let nameOffset = parser.index
            let name = try parser.parseString()
            parser.skipWhitespace()
            guard parser.current == UInt8(ascii: ":") else { throw parser.failure("expected ':' after a name") }
            parser.index += 1
            parser.skipWhitespace()
            guard object.updateValue(try parser.parseValue(at: .name(name), offset: nameOffset), forKey: name) == nil else {
                throw .syntax(offset: nameOffset, reason: "duplicate name in an object")
            }
        }
        return .object(object)
    }

    private mutating func parseArray() throws(WireJSONError) -> JSONValue {
        var array: [JSONValue] = []
        try parseElements(close: UInt8(ascii: "]"), name: "array") { parser throws(WireJSONError) in
            array.append(try parser.parseValue(at: .index(array.count), offset: parser.index))
        }
        return .array(array)
    }

    /// The part arrays and objects share: after the opening bracket, zero or more elements separated
    /// by commas (no trailing comma) up to `close`, one level deeper.
    private mutating func parseElements(
        close: UInt8, name: String, _ element: (inout JSONParser) throws(WireJSONError) -> Void
    ) throws(WireJSONError) {
        depth += 1
        guard depth <= WireJSON.maximumDepth else { throw .tooDeep(offset: index) }
        index += 1
        skipWhitespace()
        if current == close {
            index += 1
            depth -= 1
            return
        }
        while true {
            try element(&self)
            skipWhitespace()
            guard let separator = current else { throw failure("unterminated \(name)") }
            index += 1
            if separator == close { break }
            guard separator == UInt8(ascii: ",") else {
                throw .syntax(offset: index - 1, reason: "expected ',' or '\(Character(Unicode.Scalar(close)))'")
            }
            skipWhitespace()
        }
        depth -= 1
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, returned as its literal text.
    private mutating func parseNumber() throws(WireJSONError) -> String {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
            if let next = current, isDigit(next) { throw failure("leading zero in a number") }
        } else {
            guard try skipDigits() > 0 else { throw failure("expected a digit") }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard try skipDigits() > 0 else { throw failure("expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard try skipDigits() > 0 else { throw failure("expected a digit in the exponent") }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func skipDigits() throws(WireJSONError) -> Int {
        let start = index
        while let byte = current, isDigit(byte) { index += 1 }
        return index - start
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// A string starting at the opening quote. Fast path: no escapes, one UTF-8 validation.
    private mutating func parseString() throws(WireJSONError) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try validated(bytes[start..<index], at: start)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return try parseEscapedString(from: start) }
            guard byte >= 0x20 else { throw failure("unescaped control character in a string") }
            index += 1
        }
        throw .syntax(offset: start - 1, reason: "unterminated string")
    }

    private func validated(_ slice: Slice<UnsafeBufferPointer<UInt8>>, at offset: Int) throws(WireJSONError) -> String {
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw .syntax(offset: offset, reason: "invalid UTF-8 in a string")
        }
        return text
    }

    private mutating func parseEscapedString(from start: Int) throws(WireJSONError) -> String {
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try utf8.withUnsafeBufferPointer { buffer throws(WireJSONError) in
                    try validated(buffer[...], at: start)
                }
            case UInt8(ascii: "\\"):
                try appendEscape(to: &utf8)
            case 0..<0x20:
                throw failure("unescaped control character in a string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
        throw .syntax(offset: start - 1, reason: "unterminated string")
    }

    private mutating func appendEscape(to utf8: inout [UInt8]) throws(WireJSONError) {
        index += 1
        guard let kind = current else { throw failure("unterminated escape") }
        index += 1
        switch kind {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(kind)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"): utf8.append(contentsOf: try unicodeEscape().utf8)
        default: throw .syntax(offset: index - 2, reason: "invalid escape")
        }
    }

    /// After `\u`: four hex digits, and for a high surrogate a following `\uDC00`–`\uDFFF`.
    private mutating func unicodeEscape() throws(WireJSONError) -> String {
        let escapeOffset = index - 2
        let first = try hexQuad()
        var scalarValue = UInt32(first)
        if (0xD800...0xDBFF).contains(first) {
            guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else { throw .syntax(offset: escapeOffset, reason: "high surrogate without a low surrogate") }
            index += 2
            let second = try hexQuad()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw .syntax(offset: escapeOffset, reason: "high surrogate without a low surrogate")
            }
            scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw .syntax(offset: escapeOffset, reason: "lone low surrogate")
        }
        // Cannot fail: surrogates were handled above and the value is at most 0x10FFFF.
        guard let scalar = Unicode.Scalar(scalarValue) else { throw .syntax(offset: escapeOffset, reason: "invalid escape") }
        return String(Character(scalar))
    }

    private mutating func hexQuad() throws(WireJSONError) -> UInt16 {
        guard bytes.count - index >= 4 else { throw failure("expected four hex digits") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("expected four hex digits")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}
