import BrokerProtocol
@preconcurrency import Glibc
import Synchronization
import SystemCalls

/// The optional GET stream of MCP's Streamable HTTP transport ("Listening for Messages from the
/// Server"): on its own thread, started once the session is known, the bridge asks the daemon for
/// one window of the server's event stream at a time (`GET /v1/accounts/{name}/mcp`; the daemon
/// reads the upstream stream until a second after its first bytes, 20 s at most, token attached and one refresh on a 401 as for POST)
/// and writes each server message to stdout as one line, through the bridge's one writer.
/// The next window asks with `Last-Event-ID` so a server that resumes streams replays what came
/// between two windows. A 405 means the server offers no stream: the listener stops, silently.
final class MCPEventListener: Sendable {
    let account: String
    let client: BrokerClient
    let output: MCPOutput
    let sessionID: String?
    let protocolVersion: String?
    private let stopped = Atomic<Bool>(false)
    /// A failing stream (daemon or server errors) is tried this many times in a row, then given up.
    static let maximumFailures = 3

    init(account: String, client: BrokerClient, output: MCPOutput, sessionID: String?, protocolVersion: String?) {
        self.account = account
        self.client = client
        self.output = output
        self.sessionID = sessionID
        self.protocolVersion = protocolVersion
    }

    /// Starts the listening thread; false when no thread could be started (the bridge runs without).
    func start() -> Bool {
        DetachedThread.start { [self] in run() }
    }

    /// At the bridge's exit: no more windows are asked for and nothing more is written.
    func stop() { stopped.store(true, ordering: .relaxed) }

    private var isStopped: Bool { stopped.load(ordering: .relaxed) }

    private func run() {
        var lastEventID: String?
        var failures = 0
        while !isStopped {
            let started = Self.now()
            switch window(after: &lastEventID) {
            case .messages(let count):
                failures = 0
                // A server that closes an empty stream at once is not asked again at once.
                if count == 0, Self.now() - started < 1 { pause(seconds: 1) }
            case .finished:
                return
            case .stopped(let text):
                if !isStopped { output.error(text) }
                return
            case .failed(let text):
                failures += 1
                if failures >= Self.maximumFailures {
                    if !isStopped { output.error("the MCP server's event stream stopped: \(text)") }
                    return
                }
                pause(seconds: 2)
            }
        }
    }

    private enum Outcome {
        case messages(Int)
        case finished
        case stopped(String)
        case failed(String)
    }

    /// One window: the messages written, the end of listening, or a failure to report.
    private func window(after lastEventID: inout String?) -> Outcome {
        var headers: [(String, String)] = []
        if let sessionID { headers.append((MCPRelay.sessionID, sessionID)) }
        if let protocolVersion { headers.append((MCPRelay.protocolVersion, protocolVersion)) }
        if let lastEventID { headers.append((MCPRelay.lastEventID, lastEventID)) }
        let answer: MCPAnswer
        do {
            let path = try APIRoute.mcp(account).path()
            let response = try client.exchange(
                method: "GET", path: path, body: nil, accept: "text/event-stream", timeout: MCPBridge.messageTimeout,
                headers: headers)
            answer = MCPAnswer(response)
        } catch {
            return .failed(MCPBridge.daemonFailure(error, account: account))
        }
        switch answer.status {
        case 200..<300 where !answer.mediaType.hasPrefix("text/event-stream"):
            return .stopped(
                "the MCP server answered its event stream (GET) with '\(answer.mediaType)', not text/event-stream; listening stopped"
            )
        case 200..<300:
            let events: (lines: [String], lastID: String?)
            do { events = try answer.events() } catch { return .failed("its answer could not be read: \(error)") }
            if let id = events.lastID { lastEventID = id }
            for line in events.lines where !isStopped { output.line(line) }
            return .messages(events.lines.count)
        case 405:
            return .finished  // the server offers no stream (the spec's answer): nothing to report
        case 404 where sessionID != nil:
            return .finished  // the session ended; the next POST says so
        case 401:
            return .failed(
                "the MCP server refused the token of '\(account)' even after a refresh; log in again with: authctl login \(account)"
            )
        default:
            return .failed("the MCP server answered \(answer.status)\(answer.excerpt)")
        }
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Sleeps, waking early when the bridge stops.
    private func pause(seconds: Int) {
        for _ in 0..<(seconds * 10) where !isStopped { usleep(100_000) }
    }
}
