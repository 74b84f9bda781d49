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

    public static func normalize(_ url: String) throws(DPoPError) -> String {
        let bytes = Array(url.utf8)
        guard bytes.count <= maximumLength else { throw .invalidTargetURI("it is longer than \(maximumLength) bytes") }
        guard bytes.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
            throw .invalidTargetURI("it has spaces, quotes, backslashes or non-ASCII characters (percent-encode them)")
        }
        // Found on the bytes: the generic `firstRange(of:)` was a tenth of a proof's cost.
        guard let separator = bytes.indices.dropLast(2).first(where: {
            bytes[$0] == UInt8(ascii: ":") && bytes[$0 + 1] == UInt8(ascii: "/") && bytes[$0 + 2] == UInt8(ascii: "/")
        }) else {
            throw .invalidTargetURI("it is not absolute (no scheme://)")
        }
        let scheme = String(decoding: bytes[..<separator], as: UTF8.self).lowercased()
        guard scheme == "https" || scheme == "http" else { throw .invalidTargetURI("the scheme must be http or https") }
        // Query and fragment are not part of htu; the fragment ends the URI, the query ends the path.
        let afterScheme = separator + 3
        let end = bytes[afterScheme...].firstIndex { $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "?") } ?? bytes.count
        let rest = Substring(String(decoding: bytes[afterScheme..<end], as: UTF8.self))
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        return scheme + "://" + (try self.authority(authority, scheme: scheme)) + (try normalizedPath(path))
    }

    private static func authority(_ authority: Substring, scheme: String) throws(DPoPError) -> String {
        guard !authority.contains("@") else { throw .invalidTargetURI("it has user info (user@host); remove it") }
        var host = authority
        var port: Substring = ""
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidTargetURI("the IPv6 host has no closing ]") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw .invalidTargetURI("text follows the IPv6 host") }
            port = after.dropFirst()
        } else if let colon = authority.lastIndex(of: ":") {
            (host, port) = (authority[..<colon], authority[authority.index(after: colon)...])
            // A registered name or IPv4 address has no colon or bracket ("h:443:80" is not a host).
            guard !host.contains(where: { $0 == ":" || $0 == "[" || $0 == "]" }) else {
                throw .invalidTargetURI("the host has a colon or bracket outside an IPv6 literal")
            }
        }
        guard !host.isEmpty, host != "[]", !host.contains("%") || host.hasPrefix("[") else {
            throw .invalidTargetURI("the host is empty or percent-encoded")
        }
        return host.lowercased() + (try normalizedPort(port, scheme: scheme))
    }

    private static func normalizedPort(_ port: Substring, scheme: String) throws(DPoPError) -> String {
        guard !port.isEmpty else { return "" }
        guard port.count <= 5, port.allSatisfy(\.isASCIIDigit), let number = Int(port), (1...65535).contains(number) else {
            throw .invalidTargetURI("the port is not a number from 1 to 65535")
        }
        let isDefault = (scheme == "https" && number == 443) || (scheme == "http" && number == 80)
        return isDefault ? "" : ":\(number)"
    }

    private static func normalizedPath(_ path: Substring) throws(DPoPError) -> String {
        guard !path.isEmpty else { return "/" }
        var output: [UInt8] = []
        var input = Array(path.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                output.append(byte)
                continue
            }
            guard input.count >= 2, let high = hexValue(input.removeFirst()), let low = hexValue(input.removeFirst()) else {
                throw .invalidTargetURI("the path has a % that is not followed by two hex digits")
            }
            let decoded = high << 4 | low
            if isUnreserved(decoded) {
                output.append(decoded)
            } else {
                output += Array("%".utf8) + [hexDigit(high), hexDigit(low)]
            }
        }
        return String(decoding: output, as: UTF8.self)
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
        Array("0123456789ABCDEF".utf8)[Int(value)]
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

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
