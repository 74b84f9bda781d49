import BrokerCore
import BrokerHTTP
import BrokerProcesses
import BrokerProtocol

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

extension StartedDaemon {
    /// Starts the broker and the server, tells systemd, then handles signals until asked to stop.
    func serve(_ context: DaemonContext, signals: AsyncStream<Int32>) async {
        let logger = context.logger
        switch openFiles {
        case .raised(let from, let to): logger.debug("open files limit raised from \(from) to \(to)")
        case .unchanged: break
        case .refused(let soft, let why):
            logger.info("open files limit stays at \(soft) (\(why)); the units set it with LimitNOFILE=")
        }
        await broker.start()
        let sockets = restrictedSockets(context)
        await sockets.restore()
        let router = APIRouter(
            service: broker,
            configuration: .init(
                policy: PeerPolicy(allowedUIDs: context.options.allowedUIDs), startedAt: startedAt, sockets: sockets,
                adapter: Self.adapter),
            logger: logger, process: ProcessIdentity.of(pid:), executables: .system)
        let server = HTTPServer.start(listener: listener, handler: router)
        let status = await statusLine(context)
        // Logged before READY=1: whoever waits for READY (systemd, tests) then finds the line.
        logger.info("authbrokerd \(BrokerVersion.string) ready: \(status)", ["pid": String(getpid())])
        context.notifier?.send("READY=1\nSTATUS=\(status)\nMAINPID=\(getpid())")
        let watchdog = startWatchdog(context)

        for await number in signals {
            if number == SIGHUP {
                await reload(context)
            } else if number == SIGUSR1 {
                context.output.currentLevel = context.output.currentLevel == .debug ? context.options.logLevel : .debug
                logger.warning("log level is now \(context.output.currentLevel) (SIGUSR1)")
            } else {
                logger.info("stopping (signal \(number))")
                break
            }
        }
        context.notifier?.send("STOPPING=1\nSTATUS=Stopping")
        watchdog?.cancel()
        // Side by side, so the stop takes the longer of the two bounds (server drain 5 s, broker
        // drain 10 s), not their sum: both fit in TimeoutStopSec=15s. Callers parked on a refresh
        // that is being drained get its token when it lands.
        async let brokerStopped: Void = broker.shutdown()
        async let socketsStopped: Void = sockets.stopAll()
        await server.stop()
        await socketsStopped
        await brokerStopped
        removeSocket()
        logger.info("stopped")
    }

    /// Restricted sockets: same peer policy as the main socket, a router limited to each grant.
    private func restrictedSockets(_ context: DaemonContext) -> RestrictedSocketManager {
        let (broker, policy, startedAt) = (broker, PeerPolicy(allowedUIDs: context.options.allowedUIDs), startedAt)
        let logger = context.logger
        return RestrictedSocketManager(directory: socketDirectory, server: restrictedServer, broker: broker, logger: logger) {
            scope in
            APIRouter(
                service: broker, configuration: .init(policy: policy, startedAt: startedAt, scope: scope, adapter: Self.adapter),
                logger: logger, process: ProcessIdentity.of(pid:), executables: .system)
        }
    }

    /// This installation's authctl: the `authctl` beside this authbrokerd, symlinks resolved (as
    /// `/proc/PID/exe` names a running one). By path, not by inode: a package upgrade replaces both
    /// files and a running daemon must still know the new authctl. A caller is taken for it only
    /// when the file it runs is the file at this path at the time of the check
    /// (`CallerExecutable.determined`). Nil when there is none.
    static let adapter: String? = {
        let daemon = ProcessIdentity.of(pid: getpid()).executable
        guard daemon.hasPrefix("/"), let slash = daemon.lastIndex(of: "/") else { return nil }
        guard let resolved = realpath(String(daemon[...slash]) + "authctl", nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }()

    /// SIGHUP: a new HTTPS client from the CA file, the configured log level back.
    private func reload(_ context: DaemonContext) async {
        let logger = context.logger
        context.notifier?.send("RELOADING=1\nMONOTONIC_USEC=\(SystemdNotifier.monotonicMicroseconds())")
        context.output.currentLevel = context.options.logLevel
        do {
            try transport.reload()
            logger.info("reloaded: outbound HTTPS client rebuilt", ["ca_file": context.options.caFile ?? "none"])
        } catch {
            logger.error("reload failed, keeping the previous HTTPS client: \(error)")
        }
        context.notifier?.send("READY=1\nSTATUS=\(await statusLine(context))")
    }

    private func statusLine(_ context: DaemonContext) async -> String {
        let count = await broker.accountCount
        let socket = boundSocket?.path ?? "the socket-activated socket"
        return "Serving \(count) account\(count == 1 ? "" : "s") on \(socket)"
    }

    /// WATCHDOG=1 every half period, from a task: if the cooperative pool is wedged, the
    /// keep-alives stop and systemd restarts us, which is what the watchdog is for.
    private func startWatchdog(_ context: DaemonContext) -> Task<Void, Never>? {
        guard let interval = context.watchdog, let notifier = context.notifier else { return nil }
        return Task {
            while !Task.isCancelled {
                notifier.send("WATCHDOG=1")
                try? await Task.sleep(for: interval)
            }
        }
    }
}
