import Synchronization

/// Shared by a device login's poller and the daemon's shutdown: whether a token request is in
/// flight, and whether polling must stop. A poll answered while the daemon stops may carry the
/// tokens the user just approved (the device code is single-use), so shutdown waits for a request
/// in flight instead of cancelling it — and no new request starts after the stop.
public final class DevicePollControl: Sendable {
    private struct State {
        var inFlight = false
        var stopping = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Before a request: false when polling must stop instead.
    func beginRequest() -> Bool {
        state.withLock { state in
            guard !state.stopping else { return false }
            state.inFlight = true
            return true
        }
    }

    /// After a request: false when polling must not go on after this answer.
    func endRequest() -> Bool {
        state.withLock { state in
            state.inFlight = false
            return !state.stopping
        }
    }

    /// Stops polling. True when a request is in flight: its answer is coming and should be awaited.
    public func stop() -> Bool {
        state.withLock { state in
            state.stopping = true
            return state.inFlight
        }
    }
}
