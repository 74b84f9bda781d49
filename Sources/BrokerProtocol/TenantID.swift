/// A Microsoft Entra tenant id as Entra writes it in an ID token's `tid`: a GUID in lowercase hex,
/// 8-4-4-4-12. Shared by `authctl account add --tenant-allow` and the daemon, which check the same.
public enum TenantID {
    /// At most this many `--tenant-allow` entries (the list is compared on every ID token).
    public static let maximumAllowed = 64

    public static func isValid(_ text: String) -> Bool {
        let groups = text.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return false }
        return groups.allSatisfy { $0.allSatisfy(isLowercaseHex) }
    }

    /// Why `list` cannot be a tenant allow-list, or nil when it can.
    public static func problem(with list: [String]) -> String? {
        guard list.count <= maximumAllowed else { return "at most \(maximumAllowed) tenants" }
        guard let bad = list.first(where: { !isValid($0) }) else { return nil }
        let shown = bad.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) } ? String(bad.prefix(40)) : "?"
        return "'\(shown)' is not a tenant id (a GUID in lowercase hex, 8-4-4-4-12, as Entra's tid claim)"
    }

    private static func isLowercaseHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
