import Synchronization

/// The scopes each account's next login must add because a resource server asked for them
/// (`insufficient_scope`, RFC 6750 §3.1): recorded by the MCP relay or `POST …/step-up`, shown by
/// `status`, asked for by the next `authctl login`, forgotten once a login succeeds. Memory only: a
/// restart forgets them, and the next 403 records them again.
final class StepUpRequests: Sendable {
    private let table = Mutex<[AccountKey: [String]]>([:])

    /// Adds `scopes` to the account's set; true when the set grew (then the user is told, once).
    func record(_ key: AccountKey, scopes: [String]) -> Bool {
        table.withLock { table in
            var current = table[key] ?? []
            let before = current.count
            for scope in scopes where !current.contains(scope) && current.count < 32 { current.append(scope) }
            guard current.count > before else { return false }
            table[key] = current
            return true
        }
    }

    func scopes(_ key: AccountKey) -> [String] { table.withLock { $0[key] ?? [] } }

    func clear(_ key: AccountKey) { _ = table.withLock { $0.removeValue(forKey: key) } }

    /// The least time between two RFC 9728 re-discoveries for one account's challenges without
    /// `scope=`: each one is requests the resource's answers choose (hostile review: a resource
    /// answering 403 to every message must not turn the daemon into a GET cannon).
    static let rediscoveryInterval = Duration.seconds(300)
    private let discoveries = AccountThrottle(interval: rediscoveryInterval)

    /// True at most once per `rediscoveryInterval` per account.
    func mayRediscover(_ key: AccountKey, now: ContinuousClock.Instant = .now) -> Bool { discoveries.allow(key, now: now) }
}
