import BrokerProtocol
@preconcurrency import Glibc
import SystemCalls

/// The one-time code that approving a program or loosening a caller policy needs
/// (`ConfirmationCode`): the daemon shows it only in the notification, so a person types it here
/// (`--code CODE`, or asked on the terminal); docs/security.md, "Caller policy".
enum ConfirmationPrompt {
    static let option = CommandLineArguments.Option.value("--code")
    static let question = "Code shown in the notification: "

    /// `--code`, checked and grouped (`ABCD-EFGH`), or nil when not given.
    static func given(_ arguments: CommandLineArguments) throws(UsageError) -> String? {
        guard let typed = arguments.value("--code") else { return nil }
        guard let raw = ConfirmationCode.normalized(typed) else {
            throw UsageError(
                "--code: not a code as the notification shows it (ABCD-EFGH: \(ConfirmationCode.length) letters and digits)")
        }
        return ConfirmationCode.grouped(raw)
    }

    /// Asks on the terminal, reading /dev/tty; nil when authctl does not run on one (stdin is not a
    /// terminal, or there is no controlling terminal), or nothing was typed.
    static func ask(_ question: String = question) -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        Output.write(question, to: fd)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < 64 {
            let count = SystemCall.retryingInterrupts { read(fd, &byte, 1) }
            if count <= 0 || byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        let typed = String(decoding: line, as: UTF8.self).trimmingSpaces
        return typed.isEmpty ? nil : typed
    }

    /// Whether a change that signs an account out may go ahead: yes with `--yes`; otherwise asked
    /// on the terminal (`question` ends in "[y/N] "; only y or yes agrees). Without a terminal it
    /// is refused with `refusal`, before anything is changed.
    static func agreed(_ question: String, yes: Bool, refusal: String) throws(UsageError) -> Bool {
        if yes { return true }
        guard isatty(STDIN_FILENO) == 1 else { throw UsageError(refusal) }
        let answer = ask(question)?.lowercased()
        return answer == "y" || answer == "yes"
    }

    /// Runs `attempt` with `given`; when the daemon answers `confirmation_required` (it has just
    /// sent a code) and authctl runs on a terminal, asks for the code and tries once more.
    /// Without a terminal the daemon's answer stands: it says to run again with --code.
    static func confirming<T>(_ given: String?, _ attempt: (String?) throws -> T) throws -> T {
        do {
            return try attempt(given)
        } catch BrokerClientError.api(let error) where error.code == .confirmationRequired && given == nil {
            guard let typed = ask() else { throw BrokerClientError.api(error) }
            return try attempt(typed)
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" || text.first == "\r" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" || text.last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
