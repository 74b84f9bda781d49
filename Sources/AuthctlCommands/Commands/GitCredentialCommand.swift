import BrokerProtocol
@preconcurrency import Glibc
import SystemCalls
import WireFormats

/// `authctl git-credential get|store|erase`: git's credential helper protocol
/// (gitcredentials(7), git-credential(1)).
///
/// git writes `key=value` lines on stdin, ended by a blank line or EOF; for `get` the helper answers
/// the same way on stdout. stdout carries **only** protocol lines — anything else would be read by
/// git as a credential — so every problem goes to stderr, and an unknown remote gets an empty
/// answer (git then asks its other helpers or the user).
enum GitCredentialCommand: Command {
    static let name = "git-credential"
    static let summary = "git credential helper: access tokens as HTTPS passwords"
    static let help = """
        usage: authctl git-credential [--scope S]... [--resource URI]... [--audience A] get|store|erase

        A git credential helper. For a remote under an account's --git-url-prefix, `get`
        answers username (the account's --git-username, default oauth2), password (the access
        token) and password_expiry_utc (the token's expiry, unix seconds). When git offers
        capability[]=authtype (git 2.46 and later), it answers authtype=Bearer and
        credential=TOKEN instead of username and password, so git sends
        "Authorization: Bearer TOKEN". `store` does nothing (the daemon keeps the tokens);
        `erase` — git's reaction to a rejected token — tells the daemon the token was
        refused, so the next `get` refreshes it (it never logs the account out).

          git config --global credential.https://git.example.com.helper '!authctl git-credential'
          git config --global credential.https://git.example.com.useHttpPath true

        useHttpPath is needed only when an account's prefix has a path
        (https://git.example.com/team/). The longest matching prefix wins. A narrower token for
        one URL prefix: give that prefix's helper the options, e.g.
          git config --global credential.https://git.example.com/team/.helper \\
            '!authctl git-credential --scope read_repository'

        options:
        \(NarrowingOptions.help)
        """
    static let options: [CommandLineArguments.Option] = [.value("--min-ttl")] + NarrowingOptions.options

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.count == 1, let operation = arguments.positionals.first else {
            throw UsageError("'authctl git-credential' needs one of get, store, erase")
        }
        let input = GitCredentialInput.read(from: STDIN_FILENO)
        switch operation {
        case "get":
            return try get(
                input, minTTL: try arguments.integer("--min-ttl", in: APIQueryParameter.minTTL.range) ?? 60,
                narrowing: try NarrowingOptions.narrowing(arguments), context: context)
        case "store":
            return ExitCode.success
        case "erase":
            return try erase(input, context: context)
        default:
            // git may add operations; an unknown one is ignored, as gitcredentials(7) asks.
            return ExitCode.success
        }
    }

    static func get(_ input: GitCredentialInput, minTTL: Int, narrowing: TokenNarrowing = .none, context: CommandContext)
        throws -> Int32
    {
        guard let remote = input.remote, let account = try matchingAccount(remote, context: context) else {
            return ExitCode.success
        }
        let grant = try context.client.call(
            .token(account: try context.checked(account.name)), query: [.minTTL: minTTL], narrowing: narrowing)
        let token = try grant.bareToken(account: account.name, adapter: "authctl git-credential (git)")
        let expiry = grant.expiresAt.flatMap(RFC3339.parse).map { Int64($0) }
        let lines = answer(
            token: token, expiry: expiry, username: account.configuration?.gitUsername ?? "oauth2",
            bearer: input.capabilities.contains("authtype"))
        Output.write(lines.joined(separator: "\n") + "\n", to: STDOUT_FILENO)
        return ExitCode.success
    }

    /// The `get` answer. With git's `authtype` capability the token goes as `credential` with
    /// `authtype=Bearer` (git then sends it as a Bearer token, not as Basic's password); the
    /// capability line comes first, as git-credential(1) asks of anything that depends on it.
    /// `ephemeral=1`: storage helpers must not keep it — it expires, and the daemon keeps it anyway.
    static func answer(token: String, expiry: Int64?, username: String, bearer: Bool) -> [String] {
        var lines =
            bearer
            ? ["capability[]=authtype", "authtype=Bearer", "credential=\(token)", "ephemeral=1"]
            : ["username=\(username)", "password=\(token)"]
        if let expiry { lines.append("password_expiry_utc=\(expiry)") }
        return lines
    }

    static func erase(_ input: GitCredentialInput, context: CommandContext) throws -> Int32 {
        // With the authtype capability git hands back the token as `credential`, not `password`.
        guard let remote = input.remote, let password = input.values["credential"] ?? input.values["password"],
            let account = try matchingAccount(remote, context: context)
        else { return ExitCode.success }
        let result = try context.client.call(
            .tokenRejected(account: try context.checked(account.name)), body: TokenRejection(accessToken: password))
        if result.refreshScheduled {
            Output.note("authctl: '\(account.name)' will refresh its token on the next request.")
        }
        return ExitCode.success
    }

    /// The account whose git URL prefix matches `remote` best (longest prefix), if any.
    static func matchingAccount(_ remote: GitRemote, context: CommandContext) throws -> AccountStatus? {
        let accounts = try context.client.call(.listAccounts).accounts
        let candidates = accounts.compactMap { account -> (AccountStatus, GitRemote)? in
            guard let prefix = account.configuration?.gitURLPrefix.flatMap(GitRemote.init(url:)) else { return nil }
            return (account, prefix)
        }
        return GitRemote.bestMatch(for: remote, among: candidates)
    }
}

/// The attributes git sent: `key=value` lines up to a blank line or EOF. Array keys (`name[]`)
/// may repeat: `capability[]` values are collected in `capabilities`; the others keep their last value.
struct GitCredentialInput {
    var values: [String: String] = [:]
    /// What git announced it understands (`capability[]=authtype`, `capability[]=state`).
    var capabilities: Set<String> = []

    init(text: String) {
        // Split on the byte: "\r\n" is one Character, so a String split on "\n" never sees it.
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let line = line.last == UInt8(ascii: "\r") ? line.dropLast() : line[...]
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: line[..<equals], as: UTF8.self)
            let value = String(decoding: line[line.index(after: equals)...], as: UTF8.self)
            if key == "capability[]" { capabilities.insert(value) } else { values[key] = value }
        }
    }

    /// Reads stdin up to a blank line or EOF (bounded: git's input is a few hundred bytes).
    static func read(from fd: Int32) -> GitCredentialInput {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while bytes.count < 65_536 {
            let count = SystemCall.retryingInterrupts { Glibc.read(fd, &buffer, buffer.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
            // A blank line ends the input: stop without waiting for EOF.
            if bytes.starts(with: [10]) || containsBlankLine(bytes) { break }
        }
        return GitCredentialInput(text: String(decoding: bytes, as: UTF8.self))
    }

    private static func containsBlankLine(_ bytes: [UInt8]) -> Bool {
        var previous: UInt8 = 0
        var beforePrevious: UInt8 = 0
        for byte in bytes {
            if byte == 10, previous == 10 || (previous == 13 && beforePrevious == 10) { return true }
            beforePrevious = previous
            previous = byte
        }
        return false
    }

    /// The remote git asks about: from `url=` when given, else protocol/host/path.
    var remote: GitRemote? {
        if let url = values["url"] { return GitRemote(url: url) }
        guard let scheme = values["protocol"], let host = values["host"] else { return nil }
        return GitRemote(scheme: scheme, host: host, path: values["path"])
    }
}

/// An http(s) remote or prefix split into what git credential matching compares:
/// scheme and host (with port) case-insensitively, the path by segments.
struct GitRemote: Equatable {
    var scheme: String
    var host: String
    /// Path segments; nil when git sent no path (credential.useHttpPath is off).
    var segments: [String]?

    init?(scheme: String, host: String, path: String?) {
        let scheme = scheme.lowercased()
        guard scheme == "https" || scheme == "http", !host.isEmpty,
            host.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != 47 && $0 != 64 })
        else { return nil }
        self.scheme = scheme
        self.host = host.lowercased()
        segments = path.map { $0.split(separator: "/").map(String.init) }
    }

    /// `https://host[:port]/path…`; userinfo, query and fragment are refused.
    init?(url: String) {
        guard let parsed = try? AbsoluteURL(url), !parsed.hasUserInfo, parsed.query == nil, parsed.fragment == nil else {
            return nil
        }
        self.init(scheme: parsed.scheme, host: parsed.authority, path: String(parsed.path))
    }

    /// Whether this prefix covers `remote`. A remote without a path (useHttpPath off) matches any
    /// prefix on its host; the caller prefers the shortest path then (the host-wide account).
    func covers(_ remote: GitRemote) -> Bool {
        guard scheme == remote.scheme, host == remote.host else { return false }
        guard let prefix = segments, let path = remote.segments else { return true }
        // `team/repo.git` and `team/repo` name the same repository.
        return path.map(Self.withoutGitSuffix).starts(with: prefix.map(Self.withoutGitSuffix))
    }

    private static func withoutGitSuffix(_ segment: String) -> String {
        segment.hasSuffix(".git") ? String(segment.dropLast(4)) : segment
    }

    /// The candidate whose prefix covers `remote` most specifically; when git sent no path, the one
    /// with the shortest prefix path (the account for the whole host), and only if unambiguous.
    static func bestMatch<T>(for remote: GitRemote, among candidates: [(T, GitRemote)]) -> T? {
        let covering = candidates.filter { $0.1.covers(remote) }
        let depth = { (prefix: GitRemote) in prefix.segments?.count ?? 0 }
        let ordered = covering.sorted { depth($0.1) < depth($1.1) }
        if remote.segments == nil {
            guard let first = ordered.first, ordered.dropFirst().allSatisfy({ depth($0.1) > depth(first.1) }) else {
                return nil
            }
            return first.0
        }
        guard let last = ordered.last, ordered.dropLast().allSatisfy({ depth($0.1) < depth(last.1) }) else {
            return nil
        }
        return last.0
    }
}
