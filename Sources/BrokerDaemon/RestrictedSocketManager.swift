import BrokerCore
import BrokerHTTP
import BrokerProtocol
import BrokerStore
import Synchronization

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// The daemon's restricted sockets (docs/remote.md): `NAME.sock` files beside the main socket,
/// each with its own listener whose router serves only ping and its accounts' tokens
/// (`SocketScope.restricted`). A socket ends at its ttl, at `socket remove`, and at daemon stop
/// (its file is unlinked and its listener closed); `--persist` ones are stored in the vault and
/// recreated at start, their ttl an absolute expiry.
final class RestrictedSocketManager: RestrictedSocketService {
    /// One running restricted socket.
    struct Entry: Sendable {
        let grant: RestrictedGrant
        let server: HTTPServer
        let file: RestrictedSocketFile
        let expiresAt: Double?
        let persist: Bool
        var expiry: Task<Void, Never>?
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let directory: RestrictedSocketDirectory
    private let broker: any DaemonBroker
    private let makeRouter: @Sendable (SocketScope) -> APIRouter
    private let logger: Logger
    private let now: @Sendable () -> Double

    init(
        directory: RestrictedSocketDirectory, broker: any DaemonBroker, logger: Logger,
        now: @escaping @Sendable () -> Double = WallClock.now,
        makeRouter: @escaping @Sendable (SocketScope) -> APIRouter
    ) {
        self.directory = directory
        self.broker = broker
        self.logger = logger
        self.now = now
        self.makeRouter = makeRouter
    }

    func addSocket(_ request: RestrictedSocketRequest, owner: UInt32) async throws(WireError) -> RestrictedSocketInfo {
        if let problem = request.problem { throw WireError(code: .invalidRequest, message: problem) }
        for account in request.accounts {
            _ = try await broker.account(AccountKey(owner: owner, name: account))
        }
        let expiresAt = request.ttlSeconds.map { now() + Double($0) }
        // `problem` parsed them already; stored normalised, in `TokenNarrowing(spec:)`'s form.
        let narrowings = ((try? request.parsedNarrowings()) ?? []).map(\.description)
        let stored = StoredRestrictedSocket(
            name: request.name, owner: owner, accounts: request.accounts, expiresAt: expiresAt, narrowings: narrowings)
        let entry = try open(stored, persist: request.persist, replacingStale: false)
        if request.persist {
            do { try await broker.storeRestrictedSocket(stored) } catch {
                await close(request.name, forget: false)
                throw error
            }
        }
        logger.info("restricted socket added", ["socket": stored.name, "accounts": stored.accounts.joined(separator: ",")])
        return info(entry)
    }

    func sockets(owner: UInt32) async -> RestrictedSocketList {
        let mine = entries.withLock { $0.values.filter { $0.grant.owner == owner } }
        return RestrictedSocketList(sockets: mine.sorted { $0.grant.name < $1.grant.name }.map(info))
    }

    func removeSocket(name: String, owner: UInt32) async throws(WireError) {
        let known = entries.withLock { $0[name]?.grant.owner == owner }
        guard known else {
            throw WireError(
                code: .unknownAccount, message: "No restricted socket named '\(name)'; see: authctl socket list")
        }
        await close(name, forget: true)
        logger.info("restricted socket removed", ["socket": name])
    }

    func accountRemoved(_ account: AccountKey) async {
        let changed = entries.withLock { entries in
            entries.values.filter { $0.grant.owner == account.owner && $0.grant.revoke(account.name) }
        }
        for entry in changed where entry.persist {
            let stored = StoredRestrictedSocket(
                name: entry.grant.name, owner: entry.grant.owner, accounts: entry.grant.accounts,
                expiresAt: entry.expiresAt, narrowings: entry.grant.narrowings.map(\.description))
            do { try await broker.storeRestrictedSocket(stored) } catch {
                logger.error("could not update restricted socket '\(stored.name)' in the vault: \(error.message)")
            }
        }
    }

    /// At daemon start: the `--persist` sockets from the vault, except the expired (forgotten).
    func restore() async {
        let stored: [StoredRestrictedSocket]
        do { stored = try await broker.storedRestrictedSockets() } catch {
            return logger.error("restricted sockets not restored: \(error.message)")
        }
        for socket in stored {
            if let expiresAt = socket.expiresAt, expiresAt <= now() {
                do { try directory.removeStale(socket.name) } catch {
                    logger.error("expired restricted socket '\(socket.name)' left in place: \(error.message)")
                }
                try? await broker.forgetRestrictedSocket(named: socket.name)
                logger.info("restricted socket expired while the daemon was stopped", ["socket": socket.name])
                continue
            }
            do { _ = try open(socket, persist: true, replacingStale: true) } catch {
                logger.error("restricted socket '\(socket.name)' not restored: \(error.message)")
            }
        }
    }

    /// At daemon stop: every socket's file and listener go; stored ones stay in the vault. Side by
    /// side, so the stop takes one server drain (≤ 5 s) however many sockets there are.
    func stopAll() async {
        let names = entries.withLock { Array($0.keys) }
        await withTaskGroup(of: Void.self) { group in
            for name in names { group.addTask { await self.close(name, forget: false) } }
        }
    }

    /// Binds the file and starts its listener. Held under the lock: two adds of one name cannot both bind.
    private func open(_ stored: StoredRestrictedSocket, persist: Bool, replacingStale: Bool) throws(WireError) -> Entry {
        // A stored narrowing that no longer parses is left out: the socket serves less, never more.
        let grant = RestrictedGrant(
            name: stored.name, owner: stored.owner, accounts: stored.accounts,
            narrowings: stored.narrowings.compactMap { try? TokenNarrowing(spec: $0) })
        let entry = try entries.withLock { entries throws(WireError) -> Entry in
            if entries[stored.name] != nil {
                throw WireError(
                    code: .conflict,
                    message: "A restricted socket named '\(stored.name)' exists; remove it first (authctl socket remove \(stored.name)).")
            }
            let (listener, file) = try directory.bind(stored.name, replacingStale: replacingStale)
            let server = HTTPServer.start(listener: listener, handler: makeRouter(.restricted(grant)))
            let entry = Entry(grant: grant, server: server, file: file, expiresAt: stored.expiresAt, persist: persist)
            entries[stored.name] = entry
            return entry
        }
        if let expiresAt = stored.expiresAt { scheduleExpiry(stored.name, at: expiresAt) }
        return entry
    }

    private func scheduleExpiry(_ name: String, at expiresAt: Double) {
        let task = Task { [self] in
            // Wall-clock expiry, checked at least every 30 s so a resume from suspend is noticed.
            while !Task.isCancelled {
                let left = expiresAt - now()
                if left <= 0 { break }
                try? await Task.sleep(for: .milliseconds(Int(min(left, 30) * 1000) + 1))
            }
            guard !Task.isCancelled else { return }
            await close(name, forget: true)
            logger.info("restricted socket expired", ["socket": name])
        }
        entries.withLock { $0[name]?.expiry = task }
    }

    /// Stops the listener and unlinks the file; `forget` also deletes the vault row.
    private func close(_ name: String, forget: Bool) async {
        guard let entry = entries.withLock({ $0.removeValue(forKey: name) }) else { return }
        entry.expiry?.cancel()
        await entry.server.stop()
        entry.file.remove()
        if forget, entry.persist {
            do { try await broker.forgetRestrictedSocket(named: name) } catch {
                logger.error("restricted socket '\(name)' stays in the vault: \(error.message)")
            }
        }
    }

    private func info(_ entry: Entry) -> RestrictedSocketInfo {
        RestrictedSocketInfo(
            name: entry.grant.name, path: entry.file.path, accounts: entry.grant.accounts,
            expiresAt: entry.expiresAt.map { RFC3339.format(unixSeconds: $0) }, persist: entry.persist,
            narrowings: entry.grant.narrowings.isEmpty ? nil : entry.grant.narrowings.map(\.description))
    }
}
