/// Callers parked on an actor until an answer is delivered, keyed by a request number.
///
/// An answer may arrive before the caller parks (the actor delivers answers while performing the very
/// actions that parked it): it is then kept and handed over at once when the caller parks. Owned by one
/// actor; never shared.
struct Parking<Value: Sendable> {
    private var early: [UInt64: Value] = [:]
    private var waiting: [UInt64: CheckedContinuation<Value, Never>] = [:]

    /// Answers request `id`: resumes it if parked, else keeps the answer for when it parks.
    /// Returns false when `id` already had an answer (the first one wins).
    @discardableResult
    mutating func deliver(_ value: Value, to id: UInt64) -> Bool {
        if let continuation = waiting.removeValue(forKey: id) {
            continuation.resume(returning: value)
            return true
        }
        guard early[id] == nil else { return false }
        early[id] = value
        return true
    }

    /// The answer already delivered to `id`, if any (removing it).
    mutating func take(_ id: UInt64) -> Value? {
        early.removeValue(forKey: id)
    }

    /// Parks `continuation` as request `id`, or resumes it at once with an answer already delivered.
    mutating func park(_ id: UInt64, _ continuation: CheckedContinuation<Value, Never>) {
        if let value = early.removeValue(forKey: id) {
            continuation.resume(returning: value)
        } else {
            waiting[id] = continuation
        }
    }

    /// Whether request `id` is parked and unanswered.
    func isWaiting(_ id: UInt64) -> Bool { waiting[id] != nil }

    /// Every parked request (for shutdown).
    var waitingIDs: [UInt64] { Array(waiting.keys) }
}
