/// A URL's host (RFC 3986 §3.2.2) as every module compares it: a registered name lower-cased, a
/// dotted-quad IPv4 address, or an IPv6 literal (lower-cased, without its brackets). IPvFuture
/// literals and IPv6 zone identifiers (RFC 6874) are refused by the parser: nothing here connects
/// through a zone, and a `%` in a host is where URL parsers have disagreed.
public struct Host: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable { case name, ipv4, ipv6 }

    public let kind: Kind
    /// Lower-cased; an IPv6 literal without brackets, as written (not compressed or expanded).
    public let text: String
    /// Whether the host never leaves this machine: `Host.loopback`'s rule, the only one.
    public let isLoopback: Bool

    init(kind: Kind, text: String, isLoopback: Bool) {
        (self.kind, self.text, self.isLoopback) = (kind, text, isLoopback)
    }

    /// The host as a URL or a `Host` header writes it: IPv6 literals in brackets.
    public var uriText: String { kind == .ipv6 ? "[" + text + "]" : text }

    public var description: String { uriText }

    /// A host as a URL's authority writes it (`example.com`, `127.0.0.1`, `[::1]`), nil when it is
    /// not one. No port, no user info.
    public init?(_ text: some StringProtocol) {
        var copy = String(text)
        let host = copy.withUTF8 { bytes -> Host? in
            guard !bytes.isEmpty, bytes.count <= AbsoluteURL.maximumLength, bytes.allSatisfy(URLGrammar.isVisibleASCII) else {
                return nil
            }
            if bytes[0] == UInt8(ascii: "[") {
                guard bytes.count >= 2, bytes[bytes.count - 1] == UInt8(ascii: "]") else { return nil }
                return try? URLGrammar.ipv6Host(bytes[1..<(bytes.count - 1)])
            }
            return try? URLGrammar.nameOrIPv4Host(bytes[...])
        }
        guard let host else { return nil }
        self = host
    }

    /// An IP address as the socket API writes it (a dotted quad, or IPv6 without brackets), nil
    /// for a name or anything else.
    public init?(address text: some StringProtocol) {
        var copy = String(text)
        let host = copy.withUTF8 { bytes -> Host? in
            guard !bytes.isEmpty, bytes.count <= 64 else { return nil }
            if bytes.contains(UInt8(ascii: ":")) { return try? URLGrammar.ipv6Host(bytes[...]) }
            guard let address = URLGrammar.ipv4(bytes[...]) else { return nil }
            return Host(kind: .ipv4, text: String(decoding: bytes, as: UTF8.self), isLoopback: Host.ipv4IsLoopback(address))
        }
        guard let host else { return nil }
        self = host
    }

    /// `host[:port]` as a URL's authority writes it, without user info (a proxy's address, a
    /// NO_PROXY entry); the port nil when none is written.
    public static func withPort(_ text: some StringProtocol) throws(URLSyntaxError) -> (host: Host, port: Int?) {
        var copy = String(text)
        return try copy.withUTF8 { bytes in
            Result { () throws(URLSyntaxError) -> (host: Host, port: Int?) in
                guard bytes.count <= AbsoluteURL.maximumLength else { throw .tooLong(maximum: AbsoluteURL.maximumLength) }
                guard bytes.allSatisfy(URLGrammar.isVisibleASCII) else { throw .notVisibleASCII }
                return try URLGrammar.hostAndPort(bytes[...])
            }
        }.get()
    }

    /// Whether `bytes` is the one loopback name. THE loopback rule, with `ipv4IsLoopback` and
    /// `ipv6IsLoopback` (every module asks `Host.isLoopback`; nothing else decides it):
    /// - IPv4 127.0.0.0/8 and IPv6 `::1` in any spelling: the addresses the redirect listener binds
    ///   (RFC 8252 §7.3 recommends the literals, §8.3).
    /// - the name `localhost` in any case: host names are case-insensitive, and glibc's
    ///   /etc/hosts lookup compares them so. RFC 6761 §6.3 lets applications treat it as loopback.
    /// - NOT `localhost.` and NOT `*.localhost`: RFC 6761 §6.3 only says resolvers SHOULD answer
    ///   them with loopback; glibc's files lookup does not match them and asks DNS, where anyone may
    ///   answer (RFC 8252 §8.3 calls even `localhost` NOT RECOMMENDED for that reason). The rule
    ///   also judges URLs other programs resolve (a DPoP proof's URL is the caller's request), so it
    ///   cannot lean on the daemon's own resolver answering `*.localhost` locally (`HostResolver`).
    ///   The redirect listener binds 127.0.0.1 and ::1 only, and redirect URIs name those or `localhost`.
    /// - NOT the IPv4-mapped `::ffff:127.0.0.1`, NOT a dotted quad with leading zeros (to RFC 3986
    ///   `127.000.0.1` is a registered name, which `getaddrinfo` may read as octal): fail closed.
    static func nameIsLoopback(_ lowercased: String) -> Bool { lowercased == "localhost" }

    static func ipv4IsLoopback(_ address: UInt32) -> Bool { address >> 24 == 127 }

    static func ipv6IsLoopback(_ address: [UInt8]) -> Bool {
        address.count == 16 && address[..<15].allSatisfy { $0 == 0 } && address[15] == 1
    }
}
