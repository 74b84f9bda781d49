import BrokerProtocol
@preconcurrency import Glibc
import SystemCalls

/// `authctl curl NAME [curl args…] URL`: runs the real curl with the headers that authorize the
/// request (`ResourceRequestHeaders`), handed over through a pipe (`-H @/dev/fd/N`) so neither the
/// token nor the proof is ever in an argv that `ps` shows.
///
/// A DPoP account's request may meet the resource server's nonce challenge (RFC 9449 §9: 401 with
/// `WWW-Authenticate: DPoP error="use_dpop_nonce"` and `DPoP-Nonce`): the first attempt therefore
/// writes the response headers (`-D`) and its output to unlinked temporary files, and on that
/// challenge authctl asks for a proof with the nonce and runs curl once more; otherwise it copies
/// the held output to stdout and exits with curl's code. A Bearer account's curl just replaces
/// authctl (exec).
enum CurlCommand: Command {
    static let name = "curl"
    static let summary = "run curl with the account's token (and a DPoP proof for the request)"
    static let help = """
        usage: authctl curl NAME [CURL OPTIONS...] URL

        Runs curl (from PATH) with `Authorization: Bearer TOKEN`, or for a DPoP account with
        `Authorization: DPoP TOKEN` and a `DPoP` proof the daemon signs for the request's method
        (curl's: -X, -I, -G, -T, a body option is POST) and URL. The headers go to curl through a
        pipe, never on its command line. When the resource server asks for a DPoP nonce (401,
        WWW-Authenticate: DPoP error="use_dpop_nonce"), the request is sent once more with a proof
        carrying it; the first answer's output is held until curl ends and dropped on a retry.
        For a DPoP account, a 403 with error="insufficient_scope" and scope="…" is reported to
        the daemon as a step-up (authctl status shows it; `authctl login NAME` asks for the
        scopes), said on stderr; the request is not sent again.

        Refused: more than one URL, -L/--location (the proof is for this URL only), -K/--config,
        -:/--next, --request-target, -D/--dump-header, and -H for Authorization or DPoP.
        curl runs with -q first: ~/.curlrc is not read. See docs/dpop.md.

        exit codes: curl's; 127 when curl cannot be run; authctl token's codes before that
        """
    /// None of authctl's own: everything after NAME is curl's (`Invocation` stops at NAME).
    static let options: [CommandLineArguments.Option] = []

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        guard let account = arguments.positionals.first else {
            throw UsageError("'authctl curl' needs an account name; see: authctl curl --help")
        }
        let name = try context.checked(account)
        let curlArguments = Array(arguments.positionals.dropFirst())
        let target = try CurlArguments(curlArguments)
        let request = DPoPProofRequest(method: target.method, url: target.url)
        let headers = try ResourceRequestHeaders.fetch(account: name, request: request, minTTL: 60, context: context)
        let argv = Self.curlCommand(curlArguments)
        guard headers.isDPoP else { return try CurlRun.exec(argv, headers: headers.lines) }
        let first = try CurlRun.attempt(argv, headers: headers.lines, temporaryDirectory: temporaryDirectory(context))
        guard let nonce = first.nonceChallenge else {
            reportStepUp(first, account: name, context: context)
            return first.finish()
        }
        first.discard()
        var retry = request
        retry.nonce = nonce
        let second = try ResourceRequestHeaders.fetch(account: name, request: retry, minTTL: nil, context: context)
        return try CurlRun.exec(argv, headers: second.lines)
    }

    /// A 403 `insufficient_scope` answer is reported to the daemon (`POST …/step-up`), which records
    /// the scopes for the next login; one line on stderr says so. Never retried.
    static func reportStepUp(_ attempt: CurlAttempt, account: String, context: CommandContext) {
        guard let challenge = attempt.stepUpChallenge, !challenge.scopes.isEmpty else { return }
        let report = StepUpReport(scope: challenge.scopes.joined(separator: " "))
        guard let result = try? context.client.call(.stepUp(account: account), body: report) else { return }
        Output.error("the resource server needs more scopes (\(result.scope)); log in with: \(result.loginCommand)")
    }

    /// curl's command line. `-q` first (curl reads it only there): no `~/.curlrc`, whose `location`
    /// would follow the redirects `CurlArguments` refuses, carrying the token's headers elsewhere,
    /// and whose other options could change the request the proof was made for. `--globoff`: the
    /// URL curl fetches is the URL the proof names, never a {a,b} or [1-3] pattern.
    static func curlCommand(_ curlArguments: [String]) -> [String] {
        ["curl", "-q", "--globoff"] + curlArguments
    }

    /// The socket's directory (the daemon's private one, 0700) when it is there, else TMPDIR or /tmp.
    static func temporaryDirectory(_ context: CommandContext) -> String {
        let socketDirectory = String(
            context.socketPath.prefix(upTo: context.socketPath.lastIndex(of: "/") ?? context.socketPath.startIndex))
        if !socketDirectory.isEmpty, access(socketDirectory, W_OK | X_OK) == 0 { return socketDirectory }
        return context.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }
}
