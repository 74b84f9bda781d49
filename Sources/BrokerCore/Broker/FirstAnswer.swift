import Synchronization

/// Resumes a continuation with the first value offered; later offers are ignored.
final class FirstAnswer<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) { self.continuation = Mutex(continuation) }

    func offer(_ value: Value) {
        let waiting = continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        waiting?.resume(returning: value)
    }
}
