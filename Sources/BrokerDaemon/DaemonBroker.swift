import BrokerCore
import BrokerProtocol
import BrokerStore

/// What the daemon runs behind the socket API: a `BrokerService` with a lifecycle.
/// `TokenBroker` is the real one; tests of the wiring may run another.
public protocol DaemonBroker: BrokerService {
    /// Restores accounts from the vault and schedules their refreshes.
    func start() async
    /// Cancels timers and logins, lets token-endpoint calls in flight finish (bounded) and commits
    /// their answers, then finishes in-flight vault writes.
    func shutdown() async
    /// Every owner's accounts, for the daemon's own status line (never answered to a client).
    var accountCount: Int { get async }
    /// The vault rows of `--persist` restricted sockets.
    func storedRestrictedSockets() async throws(WireError) -> [StoredRestrictedSocket]
    func storeRestrictedSocket(_ socket: StoredRestrictedSocket) async throws(WireError)
    func forgetRestrictedSocket(named name: String, owner: UInt32) async throws(WireError)
}

extension TokenBroker: DaemonBroker {}
