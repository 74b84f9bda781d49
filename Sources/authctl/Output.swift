@preconcurrency import Glibc

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
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
        bytes.removeAll()
    }
}
