/// A stored property kept out of line, behind one reference, with value semantics: a write to a
/// copy that shares the storage copies it first (copy on write), as Array does.
///
/// Why: the daemon holds every account in memory, and what an account holds inline is paid once
/// per copy and per dictionary slot. `AccountRuntime` keeps everything in one box (its dictionary
/// has up to two slots per account); a `TokenSet`, held by the state machine, the last-saved copy
/// and the token cache, shares one box among them; `ManualEndpoints`, set for few accounts, is a
/// pointer for the rest (docs/BENCHMARKS-archive.md, "Memory per account", and
/// "The ID token out of memory"). Here, in the lowest
/// module the models share, so each model can use it.
///
/// `@unchecked Sendable`: the box is written in place only when `isKnownUniquelyReferenced`
/// shows that no other value shares it — otherwise the write goes to a fresh copy — so contents
/// that another value (in another concurrency domain) can see never change.
@propertyWrapper
public struct OutOfLine<Value: Sendable>: Sendable {
    @usableFromInline
    final class Box: @unchecked Sendable {
        @usableFromInline var value: Value
        @usableFromInline init(_ value: Value) { self.value = value }
    }

    @usableFromInline var box: Box

    @inlinable
    public init(wrappedValue: Value) { box = Box(wrappedValue) }

    /// Whether `self` and `other` share one box (no copy was made).
    @inlinable
    public func sharesStorage(with other: OutOfLine<Value>) -> Bool { box === other.box }

    @inlinable
    public var wrappedValue: Value {
        get { box.value }
        // In place when unshared: `runtime.machine.event(…)` must not copy the machine per call.
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }
}

extension OutOfLine: Equatable where Value: Equatable {
    /// Equal contents; one shared box is equal without reading it.
    @inlinable
    public static func == (lhs: OutOfLine, rhs: OutOfLine) -> Bool {
        lhs.box === rhs.box || lhs.box.value == rhs.box.value
    }
}

/// An optional stored property that is nil for most values (a pending login, a failing save):
/// nil costs no allocation and 8 bytes inline, a value one box. Writes replace the box (values
/// are set whole, rarely), so copies never share a box that changes.
@propertyWrapper
public struct OutOfLineIfPresent<Wrapped: Sendable>: Sendable {
    @usableFromInline var box: OutOfLine<Wrapped>.Box?

    @inlinable
    public init(wrappedValue: Wrapped?) { box = wrappedValue.map { OutOfLine<Wrapped>.Box($0) } }

    @inlinable
    public var wrappedValue: Wrapped? {
        get { box?.value }
        set { box = newValue.map { OutOfLine<Wrapped>.Box($0) } }
    }
}
