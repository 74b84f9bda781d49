import BrokerCore
import BrokerHTTP
import BrokerProtocol
import BrokerStore

/// What the daemon runs behind the socket API: a `BrokerService` with a lifecycle.
/// `TokenBroker` is the real one.
public protocol DaemonBroker: BrokerService {
    /// Restores accounts from the vault and schedules their refreshes.
    func start() async
    /// Cancels timers and logins and finishes in-flight vault writes.
    func shutdown() async
}

/// Stands in for `TokenBroker` until that actor is merged: lists the vault's accounts as logged
/// out and refuses everything else with a clear `internal` error. Lets the daemon wiring (socket,
/// signals, sd_notify, key refusal) run and be tested on its own.
final class PlaceholderBroker: DaemonBroker {
    private let names: [String]

    init(vault: sending Vault) throws {
        names = try vault.accounts().map(\.name)
    }

    func start() async {}
    func shutdown() async {}

    private var list: AccountList {
        AccountList(accounts: names.map { AccountStatus(name: $0, state: .loggedOut) })
    }

    private static var unavailable: WireError {
        WireError(code: .internal, message: "This authbrokerd build has no token broker yet.")
    }

    func status() async -> AccountList { list }
    func accounts() async -> AccountList { list }

    func account(named name: String) async throws(WireError) -> AccountStatus {
        guard names.contains(name) else {
            throw WireError(code: .unknownAccount, message: "No account named '\(name)'.")
        }
        return AccountStatus(name: name, state: .loggedOut)
    }

    func addAccount(_ configuration: BrokerProtocol.AccountConfiguration) async throws(WireError) -> AccountStatus {
        throw Self.unavailable
    }

    func removeAccount(named name: String) async throws(WireError) { throw Self.unavailable }
    func cachedToken(account: String, now: Double) -> TokenGrant? { nil }

    func token(account: String, minTTL: Double?, requester: PeerCredentials) async throws(WireError) -> TokenGrant {
        throw Self.unavailable
    }

    func startLogin(account: String, request: LoginRequest) async throws(WireError) -> LoginStarted {
        throw Self.unavailable
    }

    func loginStatus(id: String, wait: Double) async throws(WireError) -> LoginStatus { throw Self.unavailable }
    func logout(account: String) async throws(WireError) -> LogoutResult { throw Self.unavailable }
    func rekey() async throws(WireError) -> RekeyResult { throw Self.unavailable }
    func metrics() -> String { "authbroker_accounts \(names.count)\n" }
}
