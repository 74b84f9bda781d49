import Synchronization

/// A value a handler works out once per connection and reuses for the connection's later
/// requests: the socket API keeps the peer's `/proc` identity here (SO_PEERCRED names the process
/// that called `connect()`, for the connection's whole life, so reading `/proc/PID/exe` again per
/// request learns nothing new). One value per connection, of whatever type its handler stores.
///
/// A connection's requests run one after another on its own thread, so the lock is uncontended;
/// it is there because the memo travels inside a `Sendable` `ConnectionInfo`.
public final class ConnectionMemo: Sendable {
    private let stored = Mutex<(any Sendable)?>(nil)

    public init() {}

    /// The stored value when it is a `Value` for which `matches` holds, else `make()` — stored
    /// for the next request.
    public func value<Value: Sendable>(
        matching matches: (Value) -> Bool = { _ in true }, orMake make: () -> Value
    ) -> Value {
        stored.withLock { stored in
            if let value = stored as? Value, matches(value) { return value }
            let value = make()
            stored = value
            return value
        }
    }
}
