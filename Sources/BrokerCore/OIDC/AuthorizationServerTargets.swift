/// The account's own authorization-server endpoints, which a DPoP proof must never be made for:
/// a caller holding a proof for the token endpoint (plus the access token) could redeem or refresh
/// there with the account's key — the key that must never leave the daemon would sign for it.
/// Token, pushed authorization (RFC 9126), revocation (RFC 7009), device authorization (RFC 8628),
/// authorization and end-session endpoints are refused; userinfo and the JWKS are resources the
/// access token is meant for (OpenID Connect Core §5.3), so their proofs are served.
/// URLs are compared as RFC 9449 §4.3 tells a server to compare `htu`: without query and fragment,
/// after RFC 3986 §6.2.2 normalisation — and more (the whole URL lower-cased, a trailing slash
/// dropped), so a spelling the server might accept is refused too (fail closed).
struct AuthorizationServerTargets: Sendable, Equatable {
    private let normalised: Set<String>
    /// False when made without metadata: then `allows` answers no to every URL (fail closed).
    private let known: Bool

    init(_ metadata: ProviderMetadata?) {
        guard let metadata else {
            (normalised, known) = ([], false)
            return
        }
        known = true
        let endpoints = [
            metadata.tokenEndpoint, metadata.pushedAuthorizationRequestEndpoint, metadata.revocationEndpoint,
            metadata.deviceAuthorizationEndpoint, metadata.authorizationEndpoint, metadata.endSessionEndpoint,
        ]
        normalised = Set(endpoints.compactMap { $0.map(Self.normalise) })
    }

    /// True when a proof for `url` would be usable at one of the endpoints.
    func contains(_ url: String) -> Bool { normalised.contains(Self.normalise(url)) }

    /// True when the endpoints are known and `url` is none of them (the fast path's question).
    func allows(_ url: String) -> Bool { known && !contains(url) }

    /// `scheme://host[:port]/path`, lower-case, the default port and the query and fragment gone,
    /// unreserved characters percent-decoded, dot segments removed, no trailing slash.
    static func normalise(_ url: String) -> String {
        var text = Substring(url.lowercased())
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else { return String(text) }
        let scheme = text[..<colon]
        let rest = text[text.index(colon, offsetBy: 3)...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = String(rest[..<slash])
        if scheme == "https", authority.hasSuffix(":443") { authority.removeLast(4) }
        if scheme == "http", authority.hasSuffix(":80") { authority.removeLast(3) }
        if authority.hasSuffix(".") { authority.removeLast() }
        var segments: [Substring] = []
        for segment in decodedUnreserved(rest[slash...]).split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        while segments.last == "" { segments.removeLast() }
        return scheme + "://" + authority + "/" + segments.joined(separator: "/")
    }

    /// `%41` → `a` for RFC 3986 §2.3's unreserved characters (already lower-cased input).
    private static func decodedUnreserved(_ path: Substring) -> String {
        var bytes = Array(path.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                let lower = (0x41...0x5A).contains(value) ? value | 0x20 : value
                if (0x61...0x7A).contains(lower) || (0x30...0x39).contains(lower) || [0x2D, 0x2E, 0x5F, 0x7E].contains(lower) {
                    out.append(lower)
                    index += 3
                    continue
                }
            }
            out.append(bytes[index])
            index += 1
        }
        bytes = out
        return String(decoding: bytes, as: UTF8.self)
    }
}
