import BrokerProtocol
@preconcurrency import Glibc

/// `authctl mcp NAME|URL`: the stdio bridge an MCP host runs (`{"command": "authctl", "args":
/// ["mcp", "NAME"]}`), relaying to the account's MCP server through the daemon (`MCPBridge`).
enum MCPCommand: Command {
    static let name = "mcp"
    static let summary = "be an MCP server on stdio for a host, relaying to the account's MCP server"
    static let help = """
        usage: authctl mcp NAME
               authctl mcp URL

        For MCP hosts (Claude Code, Codex, VS Code…): configure the server as the command
        `authctl` with the arguments `mcp NAME`. Reads JSON-RPC messages from stdin, one per
        line, and relays each through authbrokerd to the account's MCP server (its resource URL)
        over MCP's Streamable HTTP transport; writes every message of the server to stdout, one
        per line, in order; after initialize, messages the server starts itself (its optional
        GET event stream) are written as they come. The daemon attaches the account's token (or a DPoP proof) itself:
        the token never reaches this process, the host or any argv.

        A 401 makes the daemon refresh the token once and send again. A 403 asking for more
        scopes (insufficient_scope) is recorded: `authctl status` shows it, the notify hook
        runs, and the request gets a JSON-RPC error naming `authctl login NAME`, whose login
        asks for the extra scopes. The session (Mcp-Session-Id) is ended at exit (end of stdin,
        SIGTERM, SIGINT). Problems go to stderr, one line each.

        With a URL instead of a name: the account whose resource URL it is; when there is none,
        one is added, named after the host (as `authctl account add HOST --resource-url URL`),
        and logged in through the browser; progress is written to stderr.

        exit codes: 0 at the end of stdin, 1 unknown account or bad arguments,
                    69 daemon not running; see docs/mcp.md
        """
    static let options: [CommandLineArguments.Option] = []

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.count == 1, let target = arguments.positionals.first else {
            throw UsageError("'authctl mcp' needs one account name or MCP server URL; see: authctl mcp --help")
        }
        let account =
            target.contains("://") ? try MCPAccountFinder(context: context).account(for: target) : try context.checked(target)
        // A missing account is said at once, not at the host's first message.
        _ = try context.client.call(.account(account))
        var bridge = MCPBridge(account: account, client: context.client)
        return bridge.run(input: MCPInput())
    }
}

/// `authctl mcp URL`: the account for an MCP server URL, added and logged in when there is none.
/// Adding and logging in run this authctl as a child whose stdout is our stderr: stdout belongs
/// to the host's JSON-RPC.
struct MCPAccountFinder {
    let context: CommandContext

    func account(for url: String) throws -> String {
        let wanted = Self.canonical(url)
        let accounts = try context.client.call(.listAccounts).accounts
        if let found = accounts.first(where: { $0.configuration?.resourceURL.map(Self.canonical) == wanted }) {
            try logInIfNeeded(found)
            return found.name
        }
        let name = try Self.accountName(for: url)
        if accounts.contains(where: { $0.name == name }) {
            throw UsageError(
                "an account named '\(name)' exists for another server; add one for \(url) with: "
                    + "authctl account add NAME --resource-url \(url), then use: authctl mcp NAME")
        }
        Output.error("authctl mcp: adding account '\(name)' for \(url)")
        try runSelf(["account", "add", name, "--resource-url", url], what: "adding the account")
        try logInIfNeeded(try context.client.call(.account(name)))
        return name
    }

    private func logInIfNeeded(_ status: AccountStatus) throws {
        guard status.state == .loggedOut || status.state == .loginRequired else { return }
        Output.error("authctl mcp: '\(status.name)' needs a login; opening the browser (authctl login \(status.name))")
        try runSelf(["login", status.name], what: "the login")
    }

    /// The account name for a server: its host (a port joined with '-'), as account names allow.
    static func accountName(for url: String) throws(UsageError) -> String {
        let rest = url.split(separator: "://", maxSplits: 1).last.map(String.init) ?? url
        let authority = rest.split(separator: "/", maxSplits: 1).first.map(String.init) ?? rest
        let host = authority.split(separator: "@").last.map(String.init) ?? authority
        let name = String(
            host.lowercased().map { $0 == ":" ? "-" : $0 }.filter { $0.isLetter || $0.isNumber || "-_.".contains($0) })
        if AccountName.problem(with: name) != nil {
            throw UsageError("cannot name an account after \(url); add one with: authctl account add NAME --resource-url URL")
        }
        return name
    }

    /// Scheme and host lower-cased, without a trailing "/" or a fragment: the comparison of RFC 8707's canonical URI.
    static func canonical(_ url: String) -> String {
        var url = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? url
        if url.hasSuffix("/") { url.removeLast() }
        let parts = url.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return url }
        let rest = parts[1]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        return parts[0].lowercased() + "://" + rest[..<authorityEnd].lowercased() + rest[authorityEnd...]
    }

    /// Runs `/proc/self/exe ARGS` (this authctl) with its stdout on our stderr, and waits.
    private func runSelf(_ arguments: [String], what: String) throws {
        let argv = ["authctl", "--socket", context.socketPath] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        let words: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { words.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/proc/self/exe", &actions, nil, words, environ) == 0 else {
            throw UsageError("cannot run authctl for \(what): \(String(cString: strerror(errno)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let code = DetachedChild.decode(waitStatus: status)
        guard code == 0 else { throw MCPSetupFailure(code: code, what: what) }
    }
}

/// `authctl mcp URL` could not add or log in the account: the child said why on stderr.
struct MCPSetupFailure: Error, CustomStringConvertible {
    let code: Int32
    let what: String
    var description: String { "\(what) failed (exit \(code)); see the lines above" }
}
