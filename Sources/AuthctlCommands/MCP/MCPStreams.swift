import BrokerProtocol
@preconcurrency import Glibc
import Synchronization
import SystemCalls

/// stdout (the host reads one JSON-RPC message per line) and stderr (one line per problem).
struct MCPOutput: Sendable {
    var messageFD: Int32 = STDOUT_FILENO
    var errorFD: Int32 = STDERR_FILENO

    func line(_ text: String) { write(text + "\n", to: messageFD) }
    func message(_ text: String) { line(text) }
    func error(_ text: String) { write("authctl mcp: " + text.filter { $0 != "\n" && $0 != "\r" } + "\n", to: errorFD) }

    /// One writer at a time: the event stream's thread writes beside the bridge's loop, and a
    /// line must reach the host whole.
    private static let writer = Mutex(())

    private func write(_ text: String, to fd: Int32) {
        Self.writer.withLock { _ in writeNow(text, to: fd) }
    }

    private func writeNow(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { raw in
            SystemCall.writeAll(UnsafeRawBufferPointer(raw)) { Glibc.write(fd, $0.baseAddress, $0.count) }
        }
    }
}

/// stdin as newline-delimited messages, each bounded by the relay's message limit. A read
/// interrupted by SIGTERM or SIGINT (`MCPTermination`) ends the input like EOF.
final class MCPInput {
    enum Line {
        case message([UInt8])
        case tooLong
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var ended = false
    private var skipping = false

    init(fd: Int32 = STDIN_FILENO) { self.fd = fd }

    func nextLine() -> Line? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if skipping {
                    skipping = false
                    continue
                }
                let trimmed = line.last == 13 ? Array(line.dropLast()) : line
                if trimmed.allSatisfy({ $0 == 32 || $0 == 9 }) { continue }
                return .message(trimmed)
            }
            if buffer.count > MCPRelay.maximumMessageBytes {
                buffer = []
                if !skipping {
                    skipping = true
                    return .tooLong
                }
            }
            if ended {
                guard !buffer.isEmpty, !skipping else { return nil }
                defer { buffer = [] }
                return .message(buffer)
            }
            readMore()
        }
    }

    private func readMore() {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer += chunk[..<count]
                return
            }
            if count < 0, errno == EINTR, !MCPTermination.requested { continue }
            ended = true
            if MCPTermination.requested { buffer = [] }
            return
        }
    }
}

/// SIGTERM and SIGINT end the bridge like EOF (so the session is deleted): the handler only
/// records the signal, and is installed without SA_RESTART so a blocked read of stdin returns.
enum MCPTermination {
    private static let fired = Atomic<Bool>(false)
    static var requested: Bool { fired.load(ordering: .relaxed) }

    static func arm() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in MCPTermination.fired.store(true, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGTERM, &action, nil)
        sigaction(SIGINT, &action, nil)
    }
}
