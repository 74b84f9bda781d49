import BrokerCore
import Synchronization
import SystemCalls

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

/// Where the daemon's log lines go: stderr, one `write(2)` per line. Under journald (JOURNAL_STREAM
/// names our stderr) each line starts with its syslog priority (`<6>…`) so the journal keeps the
/// level; otherwise lines read `level: message`.
///
/// On a terminal (a daemon run in the foreground by hand) each line starts with the local time,
/// `2026-12-06 14:03:07 info: …`; the journal and a redirected stderr (a file, a pipe to a
/// supervisor that stamps lines itself) get none.
///
/// The level is checked here, not in `Logger`, so SIGHUP/SIGUSR1 can change it at run time.
public final class LogOutput: Sendable {
    public let journal: Bool
    /// Lines start with the local time: stderr is a terminal and not the journal.
    public let timestamps: Bool
    private let level: Atomic<Int>
    private let fd: Int32

    public init(level: Logger.Level, journal: Bool, fd: Int32 = STDERR_FILENO) {
        self.journal = journal
        self.timestamps = !journal && isatty(fd) == 1
        self.level = Atomic(level.rawValue)
        self.fd = fd
    }

    public var currentLevel: Logger.Level {
        get { Logger.Level(rawValue: level.load(ordering: .relaxed)) ?? .info }
        set { level.store(newValue.rawValue, ordering: .relaxed) }
    }

    /// A logger writing here at whatever level is current.
    public var logger: Logger {
        Logger(minimumLevel: .debug) { [self] level, line in write(level, line) }
    }

    func write(_ level: Logger.Level, _ line: String) {
        guard level >= currentLevel else { return }
        var text = Self.format(level, line, journal: journal)
        if timestamps { text = Self.localTime(time(nil)) + " " + text }
        text.withUTF8 { bytes in
            _ = SystemCall.writeAll(UnsafeRawBufferPointer(bytes)) { Glibc.write(fd, $0.baseAddress, $0.count) }
        }
    }

    static func format(_ level: Logger.Level, _ line: String, journal: Bool) -> String {
        journal ? "<\(level.syslogPriority)>\(line)\n" : "\(level): \(line)\n"
    }

    /// `seconds` (since the epoch) as local `YYYY-MM-DD HH:MM:SS`.
    static func localTime(_ seconds: time_t) -> String {
        var clock = seconds
        var parts = tm()
        guard localtime_r(&clock, &parts) != nil else { return "" }
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// True when `JOURNAL_STREAM` ("DEVICE:INODE") is the file behind `fd`: systemd sets it for the
    /// service's stderr, but a child whose stderr was redirected inherits the variable too.
    public static func isJournal(environment: [String: String], fd: Int32 = STDERR_FILENO) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
