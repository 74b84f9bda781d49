import BrokerCore
import BrokerHTTP
import BrokerProtocol
import BrokerStore
import Synchronization
import WireFormats

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// The daemon's restricted sockets (docs/remote.md): `restricted/OWNER/NAME.sock` files beside
/// the main socket (`RestrictedSocketDirectory`), names per owner, each a listener whose router
/// serves only ping and its accounts' tokens (`SocketScope.restricted`). All of them are served
/// by one multiplexed `HTTPServer`: one accepting thread and one bounded set of connection slots,
/// whatever their number, which is capped per owner and in all (`maximumPerOwner`,
/// `maximumTotal`). A socket ends at its ttl, at `socket remove`, and at daemon stop (its file is
/// unlinked and its listener closed); `--persist` ones are stored in the vault and recreated at
/// start, their ttl an absolute expiry.
final class RestrictedSocketManager: RestrictedSocketService {
    /// Restricted sockets one owner may have at once.
    static let maximumPerOwner = 16
    /// Restricted sockets the daemon serves at once, all owners together (one descriptor each).
    static let maximumTotal = 128

    /// Names are per owner.
    struct Key: Hashable, Sendable {
        let owner: UInt32
        let name: String
    }

    /// One running restricted socket.
    struct Entry: Sendable {
        let grant: RestrictedGrant
        let served: ServedListener
        let file: RestrictedSocketFile
        let expiresAt: Double?
        let persist: Bool
        var expiry: Task<Void, Never>?
    }

    private let entries = Mutex<[Key: Entry]>([:])
    private let directory: RestrictedSocketDirectory
    /// Accepts on every restricted socket (one thread), their connections share its slots.
    private let server: HTTPServer
    private let broker: any DaemonBroker
    private let makeRouter: @Sendable (SocketScope) -> APIRouter
    private let logger: Logger
    private let now: @Sendable () -> Double

    init(
        directory: RestrictedSocketDirectory, server: HTTPServer, broker: any DaemonBroker, logger: Logger,
        now: @escaping @Sendable () -> Double = WallClock.now,
        makeRouter: @escaping @Sendable (SocketScope) -> APIRouter
    ) {
        self.directory = directory
        self.server = server
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
                await close(Key(owner: owner, name: request.name), forget: false)
                throw error
            }
        }
        logger.info(
            "restricted socket added",
            ["socket": stored.name, "owner": String(owner), "accounts": stored.accounts.joined(separator: ",")])
        return info(entry)
    }

    func sockets(owner: UInt32) async -> RestrictedSocketList {
        let mine = entries.withLock { $0.values.filter { $0.grant.owner == owner } }
        return RestrictedSocketList(sockets: mine.sorted { $0.grant.name < $1.grant.name }.map(info))
    }

    func removeSocket(name: String, owner: UInt32) async throws(WireError) {
        let key = Key(owner: owner, name: name)
        guard entries.withLock({ $0[key] != nil }) else {
            throw WireError(
                code: .unknownAccount, message: "No restricted socket named '\(name)'; see: authctl socket list")
        }
        await close(key, forget: true)
        logger.info("restricted socket removed", ["socket": name, "owner": String(owner)])
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
                do { try directory.removeStale(socket.name, owner: socket.owner) } catch {
                    logger.error("expired restricted socket '\(socket.name)' left in place: \(error.message)")
                }
                try? await broker.forgetRestrictedSocket(named: socket.name, owner: socket.owner)
                logger.info("restricted socket expired while the daemon was stopped", ["socket": socket.name])
                continue
            }
            do { _ = try open(socket, persist: true, replacingStale: true) } catch {
                logger.error("restricted socket '\(socket.name)' not restored: \(error.message)")
            }
        }
    }

    /// At daemon stop: every socket's file and listener go; stored ones stay in the vault. One
    /// server drain (≤ 5 s) however many sockets there are.
    func stopAll() async {
        let all = entries.withLock { entries in
            defer { entries.removeAll() }
            return Array(entries.values)
        }
        for entry in all { entry.expiry?.cancel() }
        await server.stop()
        for entry in all { entry.file.remove() }
    }

    /// Why one more socket of `owner` may not be made (a one-line error naming the cap and the
    /// way out), or nil. `ownerCount`/`totalCount`: the sockets there are now.
    static func capProblem(ownerCount: Int, totalCount: Int) -> String? {
        if ownerCount >= maximumPerOwner {
            return "You have \(ownerCount) restricted sockets, the most one user may have (\(maximumPerOwner)); "
                + "remove one first: authctl socket remove NAME"
        }
        if totalCount >= maximumTotal {
            return "The daemon serves \(totalCount) restricted sockets, the most it allows for all users together "
                + "(\(maximumTotal)); remove one first: authctl socket remove NAME"
        }
        return nil
    }

    /// Binds the file and starts accepting on it. Held under the lock: two adds of one name cannot
    /// both bind, and the caps cannot be overrun by adds side by side.
    private func open(_ stored: StoredRestrictedSocket, persist: Bool, replacingStale: Bool) throws(WireError) -> Entry {
        // A stored narrowing that no longer parses is left out: the socket serves less, never more.
        let grant = RestrictedGrant(
            name: stored.name, owner: stored.owner, accounts: stored.accounts,
            narrowings: stored.narrowings.compactMap { try? TokenNarrowing(spec: $0) })
        let key = Key(owner: stored.owner, name: stored.name)
        let entry = try entries.withLock { entries throws(WireError) -> Entry in
            if entries[key] != nil {
                throw WireError(
                    code: .conflict,
                    message:
                        "A restricted socket named '\(stored.name)' exists; remove it first (authctl socket remove \(stored.name))."
                )
            }
            let ownerCount = entries.keys.count { $0.owner == stored.owner }
            if let problem = Self.capProblem(ownerCount: ownerCount, totalCount: entries.count) {
                throw WireError(code: .conflict, message: problem)
            }
            let (listener, file) = try directory.bind(stored.name, owner: stored.owner, replacingStale: replacingStale)
            guard let served = server.add(listener, handler: makeRouter(.restricted(grant))) else {
                file.remove()
                throw WireError(code: .internal, message: "The daemon is stopping; no restricted socket can be added.")
            }
            let entry = Entry(grant: grant, served: served, file: file, expiresAt: stored.expiresAt, persist: persist)
            entries[key] = entry
            return entry
        }
        if let expiresAt = stored.expiresAt { scheduleExpiry(key, at: expiresAt) }
        return entry
    }

    private func scheduleExpiry(_ key: Key, at expiresAt: Double) {
        let task = Task { [self] in
            // Wall-clock expiry, checked at least every 30 s so a resume from suspend is noticed.
            while !Task.isCancelled {
                let left = expiresAt - now()
                if left <= 0 { break }
                try? await Task.sleep(for: .milliseconds(Int(min(left, 30) * 1000) + 1))
            }
            guard !Task.isCancelled else { return }
            await close(key, forget: true)
            logger.info("restricted socket expired", ["socket": key.name, "owner": String(key.owner)])
        }
        entries.withLock { $0[key]?.expiry = task }
    }

    /// Stops accepting on it, ends its connections and unlinks the file; `forget` also deletes
    /// the vault row.
    private func close(_ key: Key, forget: Bool) async {
        guard let entry = entries.withLock({ $0.removeValue(forKey: key) }) else { return }
        entry.expiry?.cancel()
        entry.file.remove()
        await server.remove(entry.served)
        if forget, entry.persist {
            do { try await broker.forgetRestrictedSocket(named: key.name, owner: key.owner) } catch {
                logger.error("restricted socket '\(key.name)' stays in the vault: \(error.message)")
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
