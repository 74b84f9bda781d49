import BrokerProtocol

/// Reads curl's header dump (`-D`) for a resource server's DPoP nonce challenge (RFC 9449 §9):
/// the last response (after any 1xx) is a 401 whose `WWW-Authenticate` has the DPoP scheme with
/// `error="use_dpop_nonce"`, and whose `DPoP-Nonce` is a valid nonce. Anything else: nil.
enum NonceChallenge {
    static func nonce(in dump: String) -> String? {
        // "\r\n" is one Character in Swift: split on both forms of a line end.
        let lines = dump.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\r\n" || $0 == "\n" })
        guard let start = lines.lastIndex(where: { $0.hasPrefix("HTTP/") }) else { return nil }
        let status = lines[start].split(separator: " ").dropFirst().first
        guard status == "401" else { return nil }
        var challenged = false
        var nonce: String?
        for line in lines[(start + 1)...] {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            if name == "www-authenticate", isNonceChallenge(value) { challenged = true }
            if name == "dpop-nonce" { nonce = value }
        }
        guard challenged, let nonce, DPoPProofRequest.isNonce(nonce) else { return nil }
        return nonce
    }

    /// The challenge of a last response that is a 403 with `error="insufficient_scope"` (a step-up,
    /// RFC 6750 §3.1), read from the same dump; nil for anything else.
    static func stepUp(in dump: String) -> BearerChallenge? {
        let lines = dump.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\r\n" || $0 == "\n" })
        guard let start = lines.lastIndex(where: { $0.hasPrefix("HTTP/") }),
            lines[start].split(separator: " ").dropFirst().first == "403"
        else { return nil }
        let challenges = lines[(start + 1)...].compactMap { line -> String? in
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "www-authenticate" else { return nil }
            return line[line.index(after: colon)...].trimmingCharacters(in: " \t")
        }
        return BearerChallenge.stepUp(in: challenges)
    }

    /// `DPoP error="use_dpop_nonce"` among the header's challenges (the scheme case-insensitive).
    static func isNonceChallenge(_ value: String) -> Bool {
        let lower = value.lowercased()
        guard lower.hasPrefix("dpop ") || lower.contains(", dpop ") else { return false }
        return lower.contains(#"error="use_dpop_nonce""#)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = self
        while let first = text.first, set.contains(first) { text = text.dropFirst() }
        while let last = text.last, set.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
