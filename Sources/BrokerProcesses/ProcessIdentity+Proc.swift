import BrokerCore
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

// The reads behind `ProcessIdentity` (BrokerCore): `/proc/PID/exe` and `/proc/PID/stat`.
extension ProcessIdentity {
    /// Reads `/proc/PID/exe` and `/proc/PID/stat`; fields that cannot be read are "unknown"
    /// (the process is gone, or — in system mode — its /proc entry is not readable to us).
    @Sendable public static func of(pid: Int32) -> ProcessIdentity {
        guard pid > 0 else { return .unknown }
        var identity = ProcessIdentity.unknown
        identity.executable = executablePath(of: pid)
        if let stat = readStat(of: pid), let parsed = parseStat(stat) {
            identity.command = parsed.command
            identity.startTime = parsed.startTime
        }
        return identity
    }

    /// `comm` and start time from a `/proc/PID/stat` line: "PID (COMM) STATE PPID … STARTTIME …".
    /// Nil when the line does not have that shape (`statField`).
    static func parseStat(_ line: [UInt8]) -> (command: String, startTime: String)? {
        guard let start = statField(22, of: line), let open = line.firstIndex(of: UInt8(ascii: "(")),
            let close = line.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        return (String(decoding: line[(open + 1)..<close], as: UTF8.self), String(decoding: start, as: UTF8.self))
    }

    /// Field 4 of a `/proc/PID/stat` line, the parent's pid; nil when the line does not have that shape.
    static func parseParentID(_ line: [UInt8]) -> Int32? {
        guard let field = statField(4, of: line), field.count <= 10 else { return nil }
        return Int32(String(decoding: field, as: UTF8.self))
    }

    /// Numbered field `number` (4 or more: the numeric ones) of a `/proc/PID/stat` line, when it is
    /// all digits (at most 20) and ends inside the line. `comm` (field 2) may itself contain
    /// spaces and parentheses, so it runs from the first "(" to the *last* ")" and the fields are
    /// counted from there. One pass over the bytes (this runs for every token handed out).
    static func statField(_ number: Int, of line: [UInt8]) -> ArraySlice<UInt8>? {
        guard number >= 4, let open = line.firstIndex(of: UInt8(ascii: "(")), let close = line.lastIndex(of: UInt8(ascii: ")")),
            open < close
        else { return nil }
        var field = 2
        var start: Int?
        var index = close + 1
        while index < line.count {
            let byte = line[index]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") {
                if start != nil { break }
            } else if index == close + 1 || line[index - 1] == UInt8(ascii: " ") {
                field += 1
                if field == number { start = index }
            }
            if start == nil, field > number { break }
            index += 1
        }
        // A line cut short inside the field (a truncated read) ends without its terminator.
        guard let start, index < line.count, index - start <= 20 else { return nil }
        let value = line[start..<index]
        guard value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return value
    }

    /// The path, or "unknown". (Linux appends " (deleted)" when the file was replaced since the
    /// process started; kept as is.)
    static func executablePath(of pid: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "unknown" }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The stat line's first KiB: field 22 comes within it (comm ≤ 64 bytes, then 21 short
    /// fields); the rest of the line is not needed.
    private static func readStat(of pid: Int32) -> [UInt8]? {
        let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readStatLine(fd)
    }

    /// One read of an open stat file: /proc files are generated whole on the first read of the open file.
    static func readStatLine(_ fd: Int32) -> [UInt8]? {
        let line = [UInt8](unsafeUninitializedCapacity: 1024) { buffer, count in
            let result = SystemCall.retryingInterrupts { read(fd, buffer.baseAddress, buffer.count) }
            count = max(0, result)
        }
        return line.isEmpty ? nil : line
    }
}
