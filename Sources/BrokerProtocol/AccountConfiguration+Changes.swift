import WireFormats

// What an update changes, by wire key: the daemon logs the names (never the values) and asks for a
// one-time code when the caller policy is among them (docs/security.md, "Caller policy").
extension AccountConfiguration {
    /// The keys of the caller policy (`--allow-exe`, `--confirm`): who may get the tokens.
    public static let callerPolicyKeys: Set<String> = [
        CodingKeys.allowExe.stringValue, CodingKeys.confirmCallers.stringValue,
    ]

    /// The wire keys whose value differs between `old` and `self`, sorted (derived from the JSON
    /// encoding, so no field list is restated; the client secret counts like any key).
    public func changedKeys(from old: AccountConfiguration) -> [String] {
        guard case .object(let new)? = try? WireJSON.encodeValue(self),
            case .object(let before)? = try? WireJSON.encodeValue(old)
        else { return Self.jsonKeys.sorted() }
        return Set(new.keys).union(before.keys).filter { new[$0] != before[$0] }.sorted()
    }
}
