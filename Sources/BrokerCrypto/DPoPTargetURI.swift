/// A DPoP proof's `htu` (RFC 9449 §4.2): the request's target URI without query and fragment,
/// normalised the way §4.3 tells servers to compare it — RFC 3986 §6.2.2 syntax-based (scheme and
/// host in lower case, percent-escapes in upper case, escaped unreserved characters decoded) and
/// §6.2.3 scheme-based (default port dropped, empty path "/"). The path is kept otherwise as
/// given: it is what the request line carries.
///
/// Refused, fail closed: other schemes than http and https, user info (a password must never be
/// signed into a header), an empty or malformed host or port, bytes outside visible ASCII, and
/// URLs longer than `maximumLength`.
public enum DPoPTargetURI {
    public static let maximumLength = 8192

    // Everything works on the URL's UTF-8 bytes (all visible ASCII once the first check passed):
    // the String, Substring and Character operations this replaced were a sixth of a resource
    // proof's cost (docs/BENCHMARKS-archive.md, "DPoP proofs: the rest of
    // the proof's own CPU").
    public static func normalize(_ url: String) throws(DPoPError) -> String {
        var url = url
        return try url.withUTF8 { bytes in Result { () throws(DPoPError) in try normalize(bytes[...]) } }.get()
    }

    private typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    private static func normalize(_ bytes: Bytes) throws(DPoPError) -> String {
        guard bytes.count <= maximumLength else { throw .invalidTargetURI("it is longer than \(maximumLength) bytes") }
        guard bytes.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
            throw .invalidTargetURI("it has spaces, quotes, backslashes or non-ASCII characters (percent-encode them)")
        }
        guard let separator = firstSchemeSeparator(bytes) else {
            throw .invalidTargetURI("it is not absolute (no scheme://)")
        }
        let scheme = lowercased(bytes[..<separator])
        guard scheme == "https" || scheme == "http" else { throw .invalidTargetURI("the scheme must be http or https") }
        // Query and fragment are not part of htu; the fragment ends the URI, the query ends the path.
        let rest = bytes[(separator + 3)...].prefix { $0 != UInt8(ascii: "#") && $0 != UInt8(ascii: "?") }
        let authority = rest.prefix { $0 != UInt8(ascii: "/") }
        let path = rest[authority.endIndex...]
        var normalized = scheme + "://"
        normalized.reserveCapacity(bytes.count + 1)
        normalized += try self.authority(authority, scheme: scheme)
        normalized += try normalizedPath(path)
        return normalized
    }

    private static func firstSchemeSeparator(_ bytes: Bytes) -> Int? {
        var index = bytes.startIndex
        while index + 2 < bytes.endIndex {
            if bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/") && bytes[index + 2] == UInt8(ascii: "/") {
                return index
            }
            index += 1
        }
        return nil
    }

    private static func authority(_ authority: Bytes, scheme: String) throws(DPoPError) -> String {
        guard !authority.contains(UInt8(ascii: "@")) else { throw .invalidTargetURI("it has user info (user@host); remove it") }
        var host = authority
        var port = authority[authority.endIndex...]
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                throw .invalidTargetURI("the IPv6 host has no closing ]")
            }
            host = authority[...close]
            let after = authority[(close + 1)...]
            guard after.isEmpty || after.first == UInt8(ascii: ":") else { throw .invalidTargetURI("text follows the IPv6 host") }
            port = after.dropFirst()
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            (host, port) = (authority[..<colon], authority[(colon + 1)...])
            // A registered name or IPv4 address has no colon or bracket ("h:443:80" is not a host).
            guard !host.contains(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }) else {
                throw .invalidTargetURI("the host has a colon or bracket outside an IPv6 literal")
            }
        }
        let bracketed = host.first == UInt8(ascii: "[")
        guard !host.isEmpty, !(host.count == 2 && bracketed && host.last == UInt8(ascii: "]")),
            !host.contains(UInt8(ascii: "%")) || bracketed
        else {
            throw .invalidTargetURI("the host is empty or percent-encoded")
        }
        return lowercased(host) + (try normalizedPort(port, scheme: scheme))
    }

    private static func normalizedPort(_ port: Bytes, scheme: String) throws(DPoPError) -> String {
        guard !port.isEmpty else { return "" }
        guard port.count <= 5, port.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw .invalidTargetURI("the port is not a number from 1 to 65535")
        }
        let number = port.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard (1...65535).contains(number) else { throw .invalidTargetURI("the port is not a number from 1 to 65535") }
        let isDefault = (scheme == "https" && number == 443) || (scheme == "http" && number == 80)
        return isDefault ? "" : ":" + String(number)
    }

    private static func normalizedPath(_ path: Bytes) throws(DPoPError) -> String {
        guard !path.isEmpty else { return "/" }
        var output: [UInt8] = []
        output.reserveCapacity(path.count)
        var index = path.startIndex
        while index < path.endIndex {
            let byte = path[index]
            index += 1
            guard byte == UInt8(ascii: "%") else {
                output.append(byte)
                continue
            }
            guard path.endIndex - index >= 2, let high = hexValue(path[index]), let low = hexValue(path[index + 1]) else {
                throw .invalidTargetURI("the path has a % that is not followed by two hex digits")
            }
            index += 2
            let decoded = high << 4 | low
            if isUnreserved(decoded) {
                output.append(decoded)
            } else {
                output += [UInt8(ascii: "%"), hexDigit(high), hexDigit(low)]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// ASCII lower case (the bytes are visible ASCII here).
    private static func lowercased(_ bytes: Bytes) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (offset, byte) in bytes.enumerated() {
                buffer[offset] = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    /// RFC 3986 §2.3: ALPHA / DIGIT / "-" / "." / "_" / "~".
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
