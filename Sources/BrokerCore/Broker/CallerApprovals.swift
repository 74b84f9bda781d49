import BrokerProtocol
import Synchronization

/// How a wait for a `--confirm` approval ended.
public enum ApprovalOutcome: Sendable, Equatable {
    case approved
    case denied
    /// No decision within the wait (`TokenBroker.Options.approvalTimeout`).
    case timedOut
    /// Too many distinct programs, or too many requests of one, already wait (bounded).
    case overloaded
    /// Too many wrong codes were tried for this wait: its code is burnt, the program must ask again.
    case abandoned
}

/// What `CallerApprovals.approve` did with a code.
enum ApprovalCheck: Equatable {
    /// Approved; `released` waiting requests go on.
    case approved(released: Int)
    /// Nothing waits for the pair, so no code was issued to check against.
    case notWaiting
    /// The code was wrong; `remaining` tries are left.
    case wrong(remaining: Int)
    /// The code was wrong for the last time: the wait is over (`released` requests answered `abandoned`).
    case burnt(released: Int)
}

/// The `--confirm` decisions of this daemon boot, per account and caller executable, and the token
/// requests waiting for one. Kept in memory only: a restart asks again (per boot, by design).
/// Read on connection threads (the fast path asks `decision`), hence a Mutex rather than the actor.
final class CallerApprovals: Sendable {
    struct Key: Hashable, Sendable {
        var account: AccountKey
        var executable: String
    }

    /// Distinct (account, executable) pairs that may wait at once, and requests per pair: callers
    /// create these, so they are bounded; decisions come from the owner's own commands.
    static let maximumPending = 64
    static let maximumWaitersPerKey = 16

    private struct Pending {
        var pid: Int32
        /// Drawn when the pair starts waiting; shown only through the notification (`firstWaiter`).
        var code = OneTimeCode()
        var waiters: [UInt64: CheckedContinuation<ApprovalOutcome, Never>] = [:]
    }

    private struct State {
        var decisions: [Key: Bool] = [:]
        var pending: [Key: Pending] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    /// true approved, false denied, nil not decided this boot.
    func decision(_ key: Key) -> Bool? {
        state.withLock { $0.decisions[key] }
    }

    /// Waits up to `timeout` for a decision on `key`. `firstWaiter` runs once, when the pair starts
    /// waiting, with the wait's one-time code as people read it (for the notification, and only
    /// there); later requests for the same pair join the wait.
    func wait(
        _ key: Key, pid: Int32, timeout: Duration, sleep: @escaping @Sendable (Duration) async throws -> Void,
        firstWaiter: @Sendable (_ code: String) -> Void
    ) async -> ApprovalOutcome {
        await withCheckedContinuation { continuation in
            let (id, immediate, code) = state.withLock { state -> (UInt64, ApprovalOutcome?, String?) in
                if let decided = state.decisions[key] { return (0, decided ? .approved : .denied, nil) }
                let first = state.pending[key] == nil
                if first, state.pending.count >= Self.maximumPending { return (0, .overloaded, nil) }
                var pending = state.pending[key] ?? Pending(pid: pid)
                guard pending.waiters.count < Self.maximumWaitersPerKey else { return (0, .overloaded, nil) }
                state.nextWaiter &+= 1
                pending.waiters[state.nextWaiter] = continuation
                state.pending[key] = pending
                return (state.nextWaiter, nil, first ? pending.code.shown : nil)
            }
            if let immediate { return continuation.resume(returning: immediate) }
            if let code { firstWaiter(code) }
            Task {
                try? await sleep(timeout)
                self.expire(key, waiter: id)
            }
        }
    }

    /// Approves `key` when `code` is the one its wait's notification showed; a wrong code uses up
    /// one of the wait's tries, and the last wrong one ends the wait (its requests answered
    /// `abandoned`): a program cannot approve itself by guessing.
    func approve(_ key: Key, code: String) -> ApprovalCheck {
        let (check, waiters) = state.withLock { state -> (ApprovalCheck, [CheckedContinuation<ApprovalOutcome, Never>]) in
            guard var pending = state.pending[key] else { return (.notWaiting, []) }
            switch pending.code.check(code) {
            case .accepted:
                state.decisions[key] = true
                state.pending[key] = nil
                return (.approved(released: pending.waiters.count), Array(pending.waiters.values))
            case .wrong(let remaining):
                state.pending[key] = pending
                return (.wrong(remaining: remaining), [])
            case .burnt:
                state.pending[key] = nil
                return (.burnt(released: pending.waiters.count), Array(pending.waiters.values))
            }
        }
        let outcome: ApprovalOutcome = if case .approved = check { .approved } else { .abandoned }
        waiters.forEach { $0.resume(returning: outcome) }
        return check
    }

    /// Records the decision for `key` (until the daemon restarts) and releases its waiters, with
    /// no code: what a denial does (it cannot widen anything), and tests.
    /// Returns how many requests it released.
    @discardableResult
    func decide(_ key: Key, approve: Bool) -> Int {
        let waiters = state.withLock { state in
            state.decisions[key] = approve
            return state.pending.removeValue(forKey: key)?.waiters.values.map { $0 } ?? []
        }
        waiters.forEach { $0.resume(returning: approve ? .approved : .denied) }
        return waiters.count
    }

    /// The executables waiting for `account`, sorted.
    func waitingExecutables(_ account: AccountKey) -> [String] {
        state.withLock { $0.pending.keys.filter { $0.account == account }.map(\.executable).sorted() }
    }

    /// `owner`'s pending approvals, by account and executable.
    func pending(owner: UInt32) -> [PendingApproval] {
        state.withLock { state in
            state.pending.filter { $0.key.account.owner == owner }.map { key, pending in
                PendingApproval(
                    account: key.account.name, executable: key.executable, pid: pending.pid, waiting: pending.waiters.count)
            }
        }.sorted { ($0.account, $0.executable) < ($1.account, $1.executable) }
    }

    /// The account was removed: its decisions go (a new account of that name starts afresh) and its
    /// waiters are refused.
    func forget(_ account: AccountKey) {
        let waiters = state.withLock { state in
            state.decisions = state.decisions.filter { $0.key.account != account }
            let keys = state.pending.keys.filter { $0.account == account }
            return keys.flatMap { state.pending.removeValue(forKey: $0)?.waiters.values.map { $0 } ?? [] }
        }
        waiters.forEach { $0.resume(returning: .denied) }
    }

    private func expire(_ key: Key, waiter id: UInt64) {
        let continuation = state.withLock { state -> CheckedContinuation<ApprovalOutcome, Never>? in
            guard let continuation = state.pending[key]?.waiters.removeValue(forKey: id) else { return nil }
            if state.pending[key]?.waiters.isEmpty == true { state.pending[key] = nil }
            return continuation
        }
        continuation?.resume(returning: .timedOut)
    }
}
