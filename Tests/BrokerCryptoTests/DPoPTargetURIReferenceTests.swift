import BrokerCrypto
import TestSupport
import Testing

/// `DPoPTargetURI.normalize` works on bytes
/// (docs/BENCHMARKS-archive.md, "DPoP proofs: the rest of the proof's own CPU"); `ReferenceTargetURI` below is
/// the String-based implementation it replaced, kept as the oracle: on every generated URL both give the same
/// `htu` or the same refusal.
@Suite struct DPoPTargetURIReferenceTests {
    @Test func theByteNormaliserAgreesWithTheReferenceOnGeneratedURLs() {
        var random = SplitMix64(seed: 7638)
        func any(_ pieces: [String]) -> String { pieces[Int(random.next() % UInt64(pieces.count))] }
        // A usual piece, or one in five times an unusual one.
        func any(_ usual: [String], or unusual: [String]) -> String { random.next() % 5 == 0 ? any(unusual) : any(usual) }
        // Mostly scheme, authority, path and query in their places (so many are signable), and one
        // URL in eight a jumble of every piece.
        let schemes = (["https://", "http://", "HTTPS://", "hTtP://"], ["ftp://", "://", "https:/", ""])
        let hosts = (["h.example", "H.Example", "[::1]", "127.0.0.1", "[fe80::1%25eth0]"],
            ["[", "]", "[]", "h%41", "u:p@h", "@", "", "[::1]x", "h:1:2"])
        let ports = (["", "", ":443", ":0443", ":80", ":8080", ":65535", ":"], [":65536", ":0", ":99999", ":8a"])
        let paths = (["/", "//", "a", "Z", "%7e", "%7E", "%2f", "%41", "%c3%a9", "..", "~", "-", "%25", ":", "@"],
            ["%", "%zz", "%4", "\"", "\\", " ", "é"])
        let tails = ["", "", "?", "?q=1&r=%zz", "#", "#f?x", "?a#b"]
        let everything = schemes.0 + schemes.1 + hosts.0 + hosts.1 + ports.0 + ports.1 + paths.0 + paths.1 + tails
        func path() -> String { (0..<Int(random.next() % 4)).map { _ in any(paths.0, or: paths.1) }.joined() }
        var accepted = 0
        for _ in 0..<20_000 {
            let url = random.next() % 8 == 0
                ? (0..<Int(random.next() % 9 + 1)).map { _ in any(everything) }.joined()
                : any(schemes.0, or: schemes.1) + any(hosts.0, or: hosts.1) + any(ports.0, or: ports.1) + path() + any(tails)
            let fast = Result { () throws(DPoPError) in try DPoPTargetURI.normalize(url) }
            let reference = Result { () throws(DPoPError) in try ReferenceTargetURI.normalize(url) }
            #expect(fast == reference, "\(url)")
            if case .success = fast { accepted += 1 }
        }
        // The generator must reach both outcomes often, or the agreement says little.
        #expect(accepted > 2_000 && accepted < 18_000, "\(accepted) accepted")
    }

    @Test func theLengthBoundIsTheSame() {
        let base = "https://h.example/"
        for extra in [0, 1] {
            let url = base + String(repeating: "a", count: DPoPTargetURI.maximumLength - base.utf8.count + extra)
            #expect(
                Result { () throws(DPoPError) in try DPoPTargetURI.normalize(url) }
                    == Result { () throws(DPoPError) in try ReferenceTargetURI.normalize(url) })
        }
    }
}

// The implementation before the byte rewrite, unchanged but for its name.
enum ReferenceTargetURI {
    static let maximumLength = DPoPTargetURI.maximumLength

    static func normalize(_ url: String) throws(DPoPError) -> String {
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
        guard port.count <= 5, port.allSatisfy(\.isReferenceASCIIDigit), let number = Int(port), (1...65535).contains(number) else {
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

    // The byte helpers as plain table lookups (the shipped code switches on ranges).
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        UInt8(String(decoding: [byte], as: UTF8.self), radix: 16)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        Array("0123456789ABCDEF".utf8)[Int(value)]
    }

    /// RFC 3986 §2.3: ALPHA / DIGIT / "-" / "." / "_" / "~".
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8).contains(byte)
    }
}

extension Character {
    fileprivate var isReferenceASCIIDigit: Bool { ("0"..."9").contains(self) }
}
