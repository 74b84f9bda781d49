/// What the front says when authctl-full is not beside it: authctl copied alone, as docs/remote.md
/// has users do for an SSH host. `authctl token NAME` still works there (the fast path); `--help`
/// and `--version` are answered here; anything else gets one line naming what is missing.
enum LoneFront {
    /// BrokerVersion.string (the front cannot import BrokerProtocol);
    /// AuthctlFrontTests.aLoneFrontAnswersHelpAndVersion compares both binaries' answers.
    static let version: StaticString = "0.1.0"

    static let usage: StaticString = """
        usage: authctl [--socket PATH] token NAME [--min-ttl SECONDS]

        This copy of authctl has no authctl-full beside it, so it answers only
        `authctl token NAME` (and --help, --version). For every other command, and for
        the messages that say why a token request failed, copy authctl-full into the same
        directory (docs/remote.md).

        """

    /// The exit status for `words` (the arguments after the program name); `fullPath` is where
    /// authctl-full was looked for.
    static func answer(_ words: [[UInt8]], fullPath: [UInt8]) -> Int32 {
        var words = words
        if words.count >= 2, words[0] == Array("--socket".utf8) { words.removeFirst(2) }
        guard let first = words.first else {
            Stream.standardError.write(usage)
            return 64
        }
        let own = words.prefix { $0 != Array("--".utf8) }
        if first == Array("help".utf8) || own.contains(Array("--help".utf8)) || own.contains(Array("-h".utf8)) {
            Stream.standardOutput.write(usage)
            return 0
        }
        if first == Array("version".utf8) || first == Array("--version".utf8) {
            Stream.standardOutput.write("authctl ")
            Stream.standardOutput.write(version)
            Stream.standardOutput.write("\n")
            return 0
        }
        var message = Array("authctl: ".utf8)
        if first == Array("token".utf8) {
            // Not the fast path's exact form (another option, an odd name, a temp-dir socket).
            message += Array("this form of 'token' needs authctl-full, which is not at ".utf8) + fullPath
            message += Array(" (alone, this copy answers `authctl [--socket PATH] token NAME [--min-ttl SECONDS]` ".utf8)
            message += Array("for a socket outside a temp-dir authbroker-UID directory; docs/remote.md)\n".utf8)
        } else {
            message += Array("'".utf8) + shortened(first) + Array("' needs authctl-full, which is not at ".utf8) + fullPath
            message += Array(
                " (this copy alone answers only `authctl token NAME`; copy authctl-full beside it: docs/remote.md)\n".utf8)
        }
        Stream.standardError.write(message)
        return 1
    }

    /// `authctl token NAME` that got no token: why, from the daemon's answer (as the full CLI would
    /// say it, more briefly), and its exit code.
    static func tokenFailure(_ request: TokenFastPath.Request, fullPath: [UInt8]) -> Int32 {
        let name = Array("'".utf8) + request.account + Array("'".utf8)
        var message = Array("authctl: ".utf8)
        var code: Int32 = 1
        switch TokenFastPath.ask(request) {
        case .noDaemon:
            message += Array("no authbrokerd of yours answers at ".utf8) + request.socketPath
            message += Array(" (start it, or forward its restricted socket there)".utf8)
            code = 69
        case .unreadable:
            message += Array("the daemon did not answer in time".utf8)
            code = 75
        case .answered(let answer):
            let status = statusCode(answer)
            switch status {
            case 401:
                message += name + Array(" needs a login: run `authctl login NAME` where the daemon runs".utf8)
                code = 77
            case 403: message += Array("the daemon refused the token of ".utf8) + name + Array(" (HTTP 403)".utf8)
            case 404: message += Array("the daemon has no account ".utf8) + name
            case 503:
                message += Array("the provider of ".utf8) + name + Array(" is unreachable and no valid token is left".utf8)
                code = 75
            default: message += Array("the daemon answered HTTP ".utf8) + digits(status) + Array(" for ".utf8) + name
            }
        }
        message += Array("; authctl-full, which says more, is not at ".utf8) + fullPath + Array(" (docs/remote.md)\n".utf8)
        Stream.standardError.write(message)
        return code
    }

    /// The status code of an `HTTP/1.1 NNN …` answer; 0 when it has none.
    static func statusCode(_ answer: [UInt8]) -> Int {
        guard answer.count >= 12, answer.starts(with: Array("HTTP/1.1 ".utf8)) else { return 0 }
        var code = 0
        for byte in answer[9..<12] {
            guard byte >= 48 && byte <= 57 else { return 0 }
            code = code * 10 + Int(byte - 48)
        }
        return code
    }

    static func digits(_ number: Int) -> [UInt8] {
        var number = number
        var result: [UInt8] = []
        repeat {
            result.insert(UInt8(48 + number % 10), at: 0)
            number /= 10
        } while number > 0
        return result
    }

    /// An argument echoed back: printable ASCII only (anything else as '?'), at most 60 bytes then "…".
    static func shortened(_ word: [UInt8]) -> [UInt8] {
        var shown = word.prefix(word.count > 80 ? 60 : 80).map { $0 >= 32 && $0 < 127 ? $0 : UInt8(ascii: "?") }
        if word.count > 80 { shown += Array("…".utf8) }
        return shown
    }
}
