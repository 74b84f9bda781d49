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
            message += Array("no token: the daemon did not answer with one, or the request needs the full CLI; ".utf8)
            message += Array("authctl-full, which says why, is not at ".utf8)
        } else {
            message += Array("'".utf8) + shortened(first) + Array("' needs authctl-full, which is not at ".utf8)
        }
        message += fullPath
        message += Array(" (this copy alone answers only `authctl token NAME`; copy authctl-full beside it: docs/remote.md)\n".utf8)
        Stream.standardError.write(message)
        return 1
    }

    /// An argument echoed back: printable ASCII only (anything else as '?'), at most 60 bytes then "…".
    static func shortened(_ word: [UInt8]) -> [UInt8] {
        var shown = word.prefix(word.count > 80 ? 60 : 80).map { $0 >= 32 && $0 < 127 ? $0 : UInt8(ascii: "?") }
        if word.count > 80 { shown += Array("…".utf8) }
        return shown
    }
}
