extension AbsoluteURL {
    /// `scheme://host[:port]/path` without user info, query and fragment, normalised as RFC 3986
    /// §6.2.2 (scheme and host lower case, percent-escapes upper case, escaped unreserved
    /// characters decoded) and §6.2.3 (the scheme's default port dropped, an empty path "/"). The
    /// path is otherwise kept as given (no dot-segment removal): it is what a request line carries.
    /// RFC 9449 §4.3 compares a DPoP proof's `htu` so.
    public var normalizedWithoutQuery: String {
        var normalized = scheme + "://" + host.uriText
        if let port, port != defaultPort { normalized += ":" + String(port) }
        return normalized + normalizedPath
    }

    /// The path with RFC 3986 §6.2.2.1–2's percent-escape normalisation; "/" for an empty one.
    public var normalizedPath: String {
        var path = path
        return path.withUTF8 { Self.normalizedPath($0[...]) }
    }

    /// The path with RFC 3986 §6.2.2.1–2's percent-escape normalisation; "/" for an empty one.
    /// The escapes were checked by the parser.
    static func normalizedPath(_ path: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        guard !path.isEmpty else { return "/" }
        guard path.contains(UInt8(ascii: "%")) else { return String(decoding: path, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(path.count)
        var index = path.startIndex
        while index < path.endIndex {
            let byte = path[index]
            index += 1
            guard byte == UInt8(ascii: "%"), path.endIndex - index >= 2, let high = URLGrammar.hexValue(path[index]),
                let low = URLGrammar.hexValue(path[index + 1])
            else {
                output.append(byte)
                continue
            }
            index += 2
            let decoded = high << 4 | low
            if URLGrammar.isUnreserved(decoded) {
                output.append(decoded)
            } else {
                output += [UInt8(ascii: "%"), hexDigit(high), hexDigit(low)]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
