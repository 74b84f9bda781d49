@preconcurrency import Glibc
import SystemCalls

/// Terminal output helpers. stdout carries results only (tokens, JSON, URLs) so scripts can
/// capture it; everything for people goes to stderr.
enum Output {
    static func line(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    static func error(_ text: String) {
        write("authctl: " + text + "\n", to: STDERR_FILENO)
    }

    static func note(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes all of `text` with as few syscalls as possible (one, normally).
    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { raw in SystemCall.writeAll(raw) { Glibc.write(fd, $0.baseAddress, $0.count) } }
        bytes.removeAll()
    }
}
