import Synchronization

/// Callers parked until an answer is delivered, keyed by a request number.
///
/// An answer may arrive before the caller parks — the actor delivers answers while performing the
/// very actions that parked it, and a token request parks only after the actor has let it go
/// (`TokenBroker.answer`) — so an answer with no one parked is kept and handed over at once when
/// the caller parks. Thread-safe for that reason: the actor registers and answers requests, and a
/// token request parks and is resumed off the actor, on its own connection thread.
final class Parking<Value: Sendable>: Sendable {
    private struct State {
        var early: [UInt64: Value] = [:]
        var waiting: [UInt64: CheckedContinuation<Value, Never>] = [:]
        /// Requests that will park (`expect`) and have not parked yet.
        var expected: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// Answers request `id`: resumes it if parked, else keeps the answer for when it parks.
    /// Returns false when `id` already had an answer (the first one wins).
    @discardableResult
    func deliver(_ value: Value, to id: UInt64) -> Bool {
        let (parked, delivered) = state.withLock { state -> (CheckedContinuation<Value, Never>?, Bool) in
            if let continuation = state.waiting.removeValue(forKey: id) { return (continuation, true) }
            guard state.early[id] == nil else { return (nil, false) }
            state.expected.remove(id)
            state.early[id] = value
            return (nil, true)
        }
        parked?.resume(returning: value)  // outside the lock: resuming schedules the caller's task
        return delivered
    }

    /// Whether `id` has an answer no one has taken yet (a `deliver` to it would be refused).
    func hasAnswer(_ id: UInt64) -> Bool {
        state.withLock { $0.early[id] != nil }
    }

    /// The answer already delivered to `id`, if any (removing it).
    func take(_ id: UInt64) -> Value? {
        state.withLock { $0.early.removeValue(forKey: id) }
    }

    /// Request `id` has no answer yet and will park: until it does, it counts as waiting, so a
    /// give-up or the shutdown answers it (kept for when it parks).
    func expect(_ id: UInt64) {
        state.withLock { _ = $0.expected.insert(id) }
    }

    /// Parks `continuation` as request `id`, or resumes it at once with an answer already delivered.
    func park(_ id: UInt64, _ continuation: CheckedContinuation<Value, Never>) {
        let answered = state.withLock { state -> Value? in
            state.expected.remove(id)
            if let value = state.early.removeValue(forKey: id) { return value }
            state.waiting[id] = continuation
            return nil
        }
        if let answered { continuation.resume(returning: answered) }
    }

    /// Whether request `id` is parked (or about to) and unanswered.
    func isWaiting(_ id: UInt64) -> Bool {
        state.withLock { $0.waiting[id] != nil || $0.expected.contains(id) }
    }

    /// Every request parked or about to park, unanswered (for shutdown).
    var waitingIDs: [UInt64] {
        state.withLock { Array($0.waiting.keys) + $0.expected }
    }
}
