@preconcurrency import Glibc
import SystemCalls

/// Lines the user pastes into the terminal `authctl login` waits on (the paste fallback), read
/// without blocking: the wait loop asks for them between its long-polls.
///
/// Only a terminal is read. A pipe or file on stdin belongs to whatever started authctl — a
/// script's `while read` loop, `ssh host authctl login` without `-t` — and eating it would break
/// that; those users hand the URL over with `authctl callback URL` instead.
struct PastedLines {
    /// Like `authctl callback`: a redirect URL longer than this is not one. (A terminal in its
    /// usual canonical mode already cuts a line at 4095 bytes; the bound holds for any input.)
    static let maxLineBytes = 16 * 1024

    private let fd: Int32
    private let isTerminal: Bool
    private var buffer: [UInt8] = []
    /// Bytes of an overlong line are dropped until its newline.
    private var discarding = false
    private(set) var isOpen: Bool

    /// A line, or what was wrong with one.
    enum Line: Equatable {
        case text(String)
        case tooLong
    }

    /// `terminalOnly` false: read `fd` whatever it is (tests, with a pipe).
    init(fd: Int32 = STDIN_FILENO, terminalOnly: Bool = true) {
        self.fd = fd
        isTerminal = isatty(fd) == 1
        isOpen = !terminalOnly || isTerminal
    }

    /// Stops reading (a device login takes no redirect).
    mutating func close() { isOpen = false }

    /// Every complete line typed since the last call (empty ones skipped), without waiting.
    /// End of input (Ctrl-D) or a read error stops the reading; the login goes on waiting.
    mutating func available() -> [Line] {
        var lines: [Line] = []
        while isOpen, isForeground, Self.readable(fd) {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = SystemCall.retryingInterrupts { read(fd, &chunk, chunk.count) }
            guard count > 0 else {
                isOpen = false
                break
            }
            lines += take(chunk[0..<count])
        }
        return lines
    }

    /// Splits `bytes` into lines, bounding the one being collected.
    private mutating func take(_ bytes: ArraySlice<UInt8>) -> [Line] {
        var lines: [Line] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if discarding {
                    lines.append(.tooLong)
                } else {
                    let text = String(decoding: buffer, as: UTF8.self).filter { !$0.isWhitespace }
                    if !text.isEmpty { lines.append(.text(text)) }
                }
                buffer.removeAll(keepingCapacity: true)
                discarding = false
            } else if !discarding {
                buffer.append(byte)
                if buffer.count > Self.maxLineBytes {
                    buffer.removeAll()
                    discarding = true
                }
            }
        }
        return lines
    }

    /// A background job (`authctl login work &`) must not read the terminal: the read would stop
    /// it (SIGTTIN), and what is typed belongs to the shell. Checked every time: `fg` and `bg` move it.
    var isForeground: Bool { !isTerminal || tcgetpgrp(fd) == getpgrp() }

    private static func readable(_ fd: Int32) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return SystemCall.retryingInterrupts { poll(&poller, 1, 0) } > 0
    }
}
