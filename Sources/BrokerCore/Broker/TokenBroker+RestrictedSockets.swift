import BrokerProtocol
import BrokerStore

/// The vault rows of `--persist` restricted sockets; the daemon's socket manager owns the
/// sockets themselves (files and listeners are not the broker's business).
extension TokenBroker {
    public func storedRestrictedSockets() async throws(WireError) -> [StoredRestrictedSocket] {
        try await vaultJob("read the stored restricted sockets") { vault in try vault.restrictedSockets() }
    }

    public func storeRestrictedSocket(_ socket: StoredRestrictedSocket) async throws(WireError) {
        try await vaultJob("store restricted socket '\(socket.name)'") { vault in try vault.saveRestrictedSocket(socket) }
    }

    public func forgetRestrictedSocket(named name: String, owner: UInt32) async throws(WireError) {
        try await vaultJob("forget restricted socket '\(name)'") { vault in
            try vault.removeRestrictedSocket(named: name, owner: owner)
        }
    }

    private func vaultJob<T: Sendable>(_ what: String, _ body: @escaping @Sendable (Vault) throws -> T)
        async throws(WireError) -> T
    {
        do { return try await worker.perform(body) } catch {
            throw WireError(code: .internal, message: "The daemon could not \(what) in its vault: \(error)")
        }
    }
}
