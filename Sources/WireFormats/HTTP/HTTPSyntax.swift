/// Byte-level grammar shared by the parsers and the serializer (RFC 9110 §5.6, RFC 9112 §2–5).
enum HTTPSyntax {
    static let cr: UInt8 = 13
    static let lf: UInt8 = 10
    static let space: UInt8 = 32
    static let tab: UInt8 = 9
    static let colon: UInt8 = 58

    /// tchar: the characters allowed in a method, a header name or a transfer coding.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// field-vchar / SP / HTAB / obs-text: anything but control characters (CR, LF, NUL, DEL…).
    @inline(__always)
    static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    /// Visible ASCII, what a request target may contain (RFC 9112 §3.2, RFC 3986).
    @inline(__always)
    static func isTargetByte(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

    static func isToken<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenByte)
    }

    /// ASCII case-insensitive comparison of raw bytes with a lowercase literal.
    static func equalsLowercased<C: Collection<UInt8>>(_ bytes: C, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        var index = 0
        let literal = lowercase.utf8Start
        for byte in bytes {
            let folded = (byte >= 65 && byte <= 90) ? byte | 0x20 : byte
            if folded != literal[index] { return false }
            index += 1
        }
        return true
    }

    /// Removes leading and trailing SP / HTAB (OWS).
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == space || first == tab { slice.removeFirst() }
        while let last = slice.last, last == space || last == tab { slice.removeLast() }
        return slice
    }

    /// Splits a comma-separated list value into trimmed elements (empty elements kept, so
    /// callers can reject them).
    static func listElements(_ value: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map(trimmed)
    }

    /// Finds the next CRLF-terminated line in `buffer[start...]`, resuming the LF search at
    /// `scan` (kept across calls so a slow peer does not cost quadratic time).
    /// Returns the line without its CRLF, or nil when more bytes are needed.
    /// A bare LF is malformed; a line longer than `limit` throws `tooLong` (built only then: an
    /// error message interpolated for every line was an eighth of a served token's instructions).
    static func nextLine(
        in buffer: [UInt8], start: Int, scan: inout Int, limit: Int, tooLong: @autoclosure () -> HTTPError
    ) throws(HTTPError) -> Range<Int>? {
        let from = max(scan, start)
        guard let lfIndex = buffer[from...].firstIndex(of: lf) else {
            scan = buffer.count
            // The line so far may end in the CR of its CRLF, which is not part of the line.
            if buffer.count - start > limit + 1 { throw tooLong() }
            return nil
        }
        guard lfIndex > start, buffer[lfIndex - 1] == cr else {
            throw .malformed("line ends with a bare LF (CRLF required)")
        }
        if lfIndex - 1 - start > limit { throw tooLong() }
        scan = lfIndex + 1
        return start..<(lfIndex - 1)
    }

    /// Parses one `name: value` field line (RFC 9112 §5): token name, no whitespace before the
    /// colon, obs-fold and control characters rejected, value trimmed of OWS.
    static func fieldLine(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (name: ArraySlice<UInt8>, value: ArraySlice<UInt8>) {
        guard let first = line.first else { throw .malformed("empty field line") }
        if first == space || first == tab { throw .malformed("obsolete line folding in header section") }
        guard let colon = line.firstIndex(of: colon) else { throw .malformed("header field without a colon") }
        let name = line[line.startIndex..<colon]
        guard isToken(name) else { throw .malformed("invalid header field name (whitespace or non-token character)") }
        let value = trimmed(line[(colon + 1)...])
        guard value.allSatisfy(isFieldValueByte) else {
            throw .malformed("control character in the value of a header field")
        }
        return (name, value)
    }

    /// Strict decimal: 1 to 18 digits, nothing else (no sign, no spaces, no overflow).
    static func decimal(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Value of a hex digit, or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    static func string(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
}
