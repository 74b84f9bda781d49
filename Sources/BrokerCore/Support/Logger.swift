import Synchronization

/// A small structured logger, passed in (never global), in the swift-log style.
///
/// Messages carry metadata (`account`, `issuer`, `attempt`…) rendered as `key=value` after the text.
/// Never put a secret in a message or in metadata: pass `Secret` values only as `<redacted>` (their
/// description) if at all. The sink decides where lines go; the daemon's sink writes stderr with
/// journald priority prefixes (`<6>`) when running under systemd.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// syslog(3) priority, as journald reads it from a `<N>` line prefix.
        public var syslogPriority: Int {
            switch self {
            case .debug: 7
            case .info: 6
            case .warning: 4
            case .error: 3
            }
        }

        public var description: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }

        public init?(name: String) {
            guard let level = Level.allCases.first(where: { $0.description == name }) else { return nil }
            self = level
        }
    }

    public typealias Sink = @Sendable (Level, String) -> Void

    public let minimumLevel: Level
    private let sink: Sink
    private let baseMetadata: [(String, String)]

    public init(minimumLevel: Level = .info, sink: @escaping Sink) {
        self.minimumLevel = minimumLevel
        self.sink = sink
        self.baseMetadata = []
    }

    private init(minimumLevel: Level, sink: @escaping Sink, baseMetadata: [(String, String)]) {
        self.minimumLevel = minimumLevel
        self.sink = sink
        self.baseMetadata = baseMetadata
    }

    /// A logger that drops everything.
    public static let discard = Logger(minimumLevel: .error) { _, _ in }

    /// This logger with `metadata` added to every line (e.g. `account=work`).
    public func with(_ metadata: KeyValuePairs<String, String>) -> Logger {
        Logger(minimumLevel: minimumLevel, sink: sink, baseMetadata: baseMetadata + metadata.map { ($0.key, $0.value) })
    }

    public func log(_ level: Level, _ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) {
        guard level >= minimumLevel else { return }
        // One event, one line: a newline in a message (e.g. from a provider's error text) is escaped.
        var line = message().replacingNewlines()
        // Appended piece by piece, with no array of all pairs: this runs for every token served
        // (the audit line), and the temporaries were most of its cost (docs/BENCHMARKS.md).
        for (key, value) in baseMetadata { line.appendPair(key, Self.quoted(value)) }
        for (key, value) in metadata { line.appendPair(key, Self.quoted(value)) }
        sink(level, line)
    }

    public func debug(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) {
        log(.debug, message(), metadata)
    }

    public func info(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) {
        log(.info, message(), metadata)
    }

    public func warning(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) {
        log(.warning, message(), metadata)
    }

    public func error(_ message: @autoclosure () -> String, _ metadata: KeyValuePairs<String, String> = [:]) {
        log(.error, message(), metadata)
    }

    /// Values with spaces, quotes or control characters are quoted and escaped, so one event stays one line.
    static func quoted(_ value: String) -> String {
        let plain = !value.isEmpty && value.utf8AllSatisfy { $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "\"") }
        if plain { return value }
        var escaped = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default:
                if scalar.value < 32 || scalar.value == 127 {
                    escaped += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped + "\""
    }
}

/// Collects log lines in memory: for tests that assert what was (and was not) logged.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    public init() {}

    public var logger: Logger { logger(minimumLevel: .debug) }

    public func logger(minimumLevel: Logger.Level) -> Logger {
        Logger(minimumLevel: minimumLevel) { [self] level, line in
            lines.withLock { $0.append("\(level): \(line)") }
        }
    }

    public var captured: [String] { lines.withLock { $0 } }
}

extension String {
    fileprivate mutating func appendPair(_ key: String, _ value: String) {
        append(" ")
        append(key)
        append("=")
        append(value)
    }

    /// `utf8.allSatisfy` on the contiguous bytes of a native string: the UTF8View's iterator cost
    /// ≈ 20 instructions a byte, and every audit line scans each of its values (docs/BENCHMARKS.md).
    fileprivate func utf8AllSatisfy(_ predicate: (UInt8) -> Bool) -> Bool {
        utf8.withContiguousStorageIfAvailable { $0.allSatisfy(predicate) } ?? utf8.allSatisfy(predicate)
    }

    fileprivate func replacingNewlines() -> String {
        // Printable ASCII has no newline: skip the per-Character scan for the usual message.
        if utf8AllSatisfy({ $0 >= 32 && $0 < 127 }) { return self }
        guard contains(where: \.isNewline) else { return self }
        return split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).joined(separator: "\\n")
    }
}
