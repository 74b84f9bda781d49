import BrokerCore
import BrokerHTTP
import BrokerProcesses
import BrokerProtocol
import BrokerStore

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// The daemon after its blocking start-up: vault open, socket listening, broker built.
struct StartedDaemon: Sendable {
    let listener: HTTPListener
    let broker: any DaemonBroker
    let transport: ReloadableTransport
    /// The socket file we bound (device, inode), removed on stop if it is still ours; nil when
    /// the socket came from systemd (the socket unit owns it).
    let boundSocket: (path: String, dev: UInt64, ino: UInt64)?
    /// Where restricted sockets are bound (`restricted/` in the main socket's directory).
    let socketDirectory: RestrictedSocketDirectory
    /// The one server all restricted sockets are added to (one accepting thread).
    let restrictedServer: HTTPServer
    /// What happened to the open-files limit at start (logged once serving).
    let openFiles: OpenFilesLimit.Outcome
    let startedAt: Double

    /// Runs on the main thread before any task: every call here may block (scrypt, SQLite, bind).
    static func start(_ context: DaemonContext) throws -> StartedDaemon {
        let startedAt = WallClock.now()
        let options = context.options
        try ProcessHardening.apply()
        let openFiles = OpenFilesLimit.raise()
        let stateDirectory = try StateDirectory.open(options.stateDirectory)
        let keySource = try KeySource.resolve(
            environment: context.environment, keyFile: options.keyFile, passphraseFile: options.passphraseFile)
        // The socket first: a second daemon on the same socket is told "already running" (the
        // clearest message), before it touches the database.
        let (listener, bound) = try listen(context)
        let vault: Vault
        let transport: ReloadableTransport
        let socketDirectory: RestrictedSocketDirectory
        let restrictedServer: HTTPServer
        do {
            var inherited = false
            if case .inherited = listener.address { inherited = true }
            socketDirectory = try RestrictedSocketDirectory.open(mainSocket: options.socketPath, inherited: inherited)
            try StateLock.acquire(stateDirectory: options.stateDirectory, descriptor: stateDirectory)
            vault = try Vault.open(databasePath: options.databasePath, keySource: keySource)
            transport = try ReloadableTransport(configuration: httpConfiguration(context))
            do { restrictedServer = try HTTPServer.multiplexed() } catch { throw DaemonError.listener(error) }
        } catch {
            if let bound { unlink(bound.path) }  // ours, just bound: leave nothing behind
            throw error
        }
        let broker = makeBroker(vault: vault, transport: transport, context: context)
        context.logger.info(
            "vault open", ["database": options.databasePath, "key": keySource.description])
        return StartedDaemon(
            listener: listener, broker: broker, transport: transport, boundSocket: bound, socketDirectory: socketDirectory,
            restrictedServer: restrictedServer, openFiles: openFiles, startedAt: startedAt)
    }

    /// The broker behind the socket API.
    private static func makeBroker(
        vault: sending Vault, transport: any HTTPTransport, context: DaemonContext
    ) -> any DaemonBroker {
        var options = TokenBroker.Options(
            notifyCommand: context.options.notifyCommand, environment: context.childEnvironment, hookRunner: HookProcess())
        options.approvalTimeout = Double(context.options.approvalTimeout)
        options.narrowedRefreshBurst = context.options.narrowedRefreshLimit.burst
        options.narrowedRefreshesPerMinute = context.options.narrowedRefreshLimit.perMinute
        return TokenBroker(vault: vault, transport: transport, options: options, logger: context.logger)
    }

    private static func httpConfiguration(_ context: DaemonContext) throws(DaemonError) -> HTTPClientConfiguration {
        let proxy: ProxyConfiguration
        do { proxy = try ProxyConfiguration(environment: context.environment) } catch { throw .transport("\(error)") }
        return HTTPClientConfiguration(
            caFile: context.options.caFile, proxy: proxy, userAgent: "authbroker/\(BrokerVersion.string)")
    }

    /// The inherited socket (socket activation), else a new one at the configured path.
    private static func listen(_ context: DaemonContext) throws(DaemonError) -> (
        HTTPListener, (path: String, dev: UInt64, ino: UInt64)?
    ) {
        do {
            if let inherited = try HTTPListener.inherited(environment: context.environment) {
                context.logger.info("using the socket passed by systemd (socket activation)")
                return (inherited, nil)
            }
        } catch {
            throw .listener(error)
        }
        let path = context.options.socketPath
        var bindPath = path
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            // Bound through the checked directory's descriptor, never re-resolved by path.
            let directory: Int32
            do throws(PrivateDirectory.Problem) {
                directory = try PrivateDirectories.open(String(path[..<slash]), forbidden: 0o077)
            } catch {
                throw .unsafeSocketDirectory(error.description)
            }
            bindPath = PrivateDirectory.path(in: directory, String(path[path.index(after: slash)...]))
        }
        let listener: HTTPListener
        do { listener = try HTTPListener.unix(path: bindPath) } catch {
            if case .alreadyRunning = error { throw .alreadyRunning(socket: path) }
            throw .listener(error)
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { return (listener, nil) }
        return (listener, (path, UInt64(info.st_dev), UInt64(info.st_ino)))
    }

    /// Removes the socket file if it is still the one we bound (a newer daemon may own the path).
    func removeSocket() {
        guard let bound = boundSocket else { return }
        var info = stat()
        guard lstat(bound.path, &info) == 0, UInt64(info.st_dev) == bound.dev, UInt64(info.st_ino) == bound.ino
        else { return }
        unlink(bound.path)
    }
}

/// The state directory (holds tokens.db and the lock): created 0700 when missing, then opened
/// and checked by descriptor — owned by the daemon's uid, not writable by group or other
/// (docs/security.md, "Encryption at rest"). The descriptor stays open for the daemon's life.
enum StateDirectory {
    static func open(_ path: String) throws(DaemonError) -> Int32 {
        do throws(PrivateDirectory.Problem) {
            return try PrivateDirectories.open(path, forbidden: 0o022, fix: "chmod 700")
        } catch {
            throw .stateDirectory(path: path, reason: error.description)
        }
    }
}

/// Directories the daemon creates when missing (0700, with missing parents) and then opens
/// through `PrivateDirectory`. The descriptors are kept open while the daemon runs.
enum PrivateDirectories {
    static func open(_ path: String, forbidden: UInt32, fix: String = "chmod 700") throws(PrivateDirectory.Problem) -> Int32 {
        try create(path)
        return try PrivateDirectory.open(path, forbidden: forbidden, fix: fix).get()
    }

    private static func create(_ path: String) throws(PrivateDirectory.Problem) {
        var info = stat()
        if lstat(path, &info) == 0 { return }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex { try create(String(path[..<slash])) }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw .system(path, call: "mkdir", errno: errno) }
    }
}
