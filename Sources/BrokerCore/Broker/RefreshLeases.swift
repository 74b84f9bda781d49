/// One token-endpoint call per account at a time that presents its refresh token: the plain
/// refresh and every narrowed one take the account's lease, so a rotated refresh token is stored
/// and adopted before the next call reads it — none ever presents a spent one (which providers
/// with reuse detection answer by revoking the whole grant). Waiters are served in order.
struct RefreshLeases: Sendable {
    private var held: Set<AccountKey> = []
    private var waiting: [AccountKey: [CheckedContinuation<Void, Never>]] = [:]

    /// Takes the free lease of `key`; false when it is held (then `enqueue`).
    mutating func tryAcquire(_ key: AccountKey) -> Bool {
        held.insert(key).inserted
    }

    mutating func enqueue(_ key: AccountKey, _ continuation: CheckedContinuation<Void, Never>) {
        waiting[key, default: []].append(continuation)
    }

    /// Hands the lease to the next waiter (returned, to resume) or frees it.
    mutating func release(_ key: AccountKey) -> CheckedContinuation<Void, Never>? {
        guard var queue = waiting[key], !queue.isEmpty else {
            held.remove(key)
            return nil
        }
        let next = queue.removeFirst()
        waiting[key] = queue.isEmpty ? nil : queue
        return next
    }

    func isHeld(_ key: AccountKey) -> Bool { held.contains(key) }
}
