/// An account as the broker knows it: its owner's uid and its name. Names are unique per owner
/// (two users may each have a `work`), so every map, cache, timer, login and metric is keyed by
/// both, and no code path can look an account up by name alone. The owner is the SO_PEERCRED uid
/// of the client that created the account; the socket routes build keys from the caller's uid only.
public struct AccountKey: Hashable, Sendable, CustomStringConvertible {
    public var owner: UInt32
    public var name: String

    public init(owner: UInt32, name: String) {
        self.owner = owner
        self.name = name
    }

    public var description: String { "\(name) (uid \(owner))" }
}

extension Logger {
    /// This logger naming `account` unambiguously (`account=NAME owner=UID`): names collide across owners.
    func with(_ account: AccountKey) -> Logger {
        with(["account": account.name, "owner": String(account.owner)])
    }
}
