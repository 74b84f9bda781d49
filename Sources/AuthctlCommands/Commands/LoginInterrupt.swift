@preconcurrency import Glibc
import Synchronization

/// Ctrl-C while `authctl login` waits: the handler only records the signal (one atomic store,
/// async-signal-safe); the wait loop, back from its poll within about a second, cancels the login
/// through the daemon and exits 130 — instead of leaving `pending_login` until the timeout.
/// Installed only over SIGINT's default or the login page's cleanup handler, never over an
/// ignored SIGINT (a background job's); the previous action comes back on `disarm`.
enum LoginInterrupt {
    private static let fired = Atomic<Bool>(false)
    nonisolated(unsafe) private static var previous: sigaction?

    /// Whether SIGINT arrived since `arm`.
    static var hasFired: Bool { fired.load(ordering: .relaxed) }

    static func arm() {
        var old = sigaction()
        guard previous == nil, sigaction(SIGINT, nil, &old) == 0 else { return }
        // SIG_IGN is handler 1: a job started with SIGINT ignored keeps ignoring it.
        if let handler = old.__sigaction_handler.sa_handler, unsafeBitCast(handler, to: Int.self) == 1 { return }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in LoginInterrupt.fired.store(true, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        if sigaction(SIGINT, &action, nil) == 0 { previous = old }
    }

    static func disarm() {
        guard var old = previous else { return }
        sigaction(SIGINT, &old, nil)
        previous = nil
    }
}
