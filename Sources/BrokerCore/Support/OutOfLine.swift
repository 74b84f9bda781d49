/// A stored property kept out of line, behind one reference, with value semantics: a write to a
/// copy that shares the storage copies it first (copy on write), as Array does.
///
/// Why: `TokenBroker` keeps each account's `AccountRuntime` in a dictionary, whose storage has a
/// value-sized slot per bucket, and there are up to twice as many buckets as accounts. Inline,
/// the runtime was 1,264 bytes (its configuration 400, state machine 448, metadata 232), so 1,000
/// accounts held 2.5 MB of slots, half of them empty (docs/BENCHMARKS.md, "Daemon idle").
///
/// `@unchecked Sendable`: the box is written in place only when `isKnownUniquelyReferenced`
/// shows that no other value shares it — otherwise the write goes to a fresh copy — so contents
/// that another value (in another concurrency domain) can see never change.
@propertyWrapper
struct OutOfLine<Value: Sendable>: Sendable {
    private final class Box: @unchecked Sendable {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box

    init(wrappedValue: Value) { box = Box(wrappedValue) }

    /// Whether `self` and `other` share one box (no copy was made).
    func sharesStorage(with other: OutOfLine<Value>) -> Bool { box === other.box }

    var wrappedValue: Value {
        get { box.value }
        // In place when unshared: `runtime.machine.event(…)` must not copy the machine per call.
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }
}
