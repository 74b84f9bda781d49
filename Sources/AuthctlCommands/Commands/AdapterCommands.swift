import BrokerProtocol
@preconcurrency import Glibc
import SystemCalls

/// `authctl exec NAME [--env VAR] -- CMD ARGS…`: run a program with the token in its environment.
enum ExecCommand: Command {
    static let name = "exec"
    static let summary = "run a command with the access token in an environment variable"
    static let help = """
        usage: authctl exec NAME [--env VAR] [--min-ttl SECONDS] [--scope S]... [--resource URI]... [--audience A]
                            -- CMD [ARGS...]

        Fetches the account's access token, puts it in VAR (default ACCESS_TOKEN) and replaces
        authctl with CMD (exec), so signals and the exit code are CMD's own.

        options:
          --env VAR          the variable to set (default ACCESS_TOKEN)
          --min-ttl SECONDS  the token must stay valid at least this long (default 60)
        \(NarrowingOptions.help)

        A DPoP account is refused: its token is useless without a proof for each request
        (use authctl curl or authctl header --method --url; docs/dpop.md).

        exit codes: CMD's; 127 when CMD cannot be run; authctl token's codes before that
        """
    static let options: [CommandLineArguments.Option] = [.value("--env"), .value("--min-ttl")] + NarrowingOptions.options

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        if arguments.passthrough == nil, arguments.positionals.count > 1 {
            // `authctl exec work env`: the command is there, the `--` that marks it is not.
            let name = ShownText.argument(arguments.positionals[0])
            let program = arguments.positionals.dropFirst().map { ShownText.argument($0) }.joined(separator: " ")
            throw UsageError("'authctl exec' needs '--' before the command: authctl exec \(name) -- \(program)")
        }
        let account = try requireAccountName(arguments, command: "authctl exec")
        guard let program = arguments.passthrough, let executable = program.first else {
            throw UsageError("'authctl exec' needs a command after '--'; see: authctl exec --help")
        }
        let variable = arguments.value("--env") ?? "ACCESS_TOKEN"
        guard isEnvironmentName(variable) else {
            throw UsageError("--env needs a variable name like ACCESS_TOKEN, got '\(variable)'")
        }
        let minTTL = try arguments.integer("--min-ttl", in: APIQueryParameter.minTTL.range) ?? 60
        let name = try context.checked(account)
        let token = try context.client.call(
            .token(account: name), query: [.minTTL: minTTL], narrowing: try NarrowingOptions.narrowing(arguments)
        ).bareToken(account: name, adapter: "authctl exec (a variable)")
        setenv(variable, token, 1)
        let argv: [UnsafeMutablePointer<CChar>?] = program.map { strdup($0) } + [nil]
        execvp(executable, argv)
        Output.error("cannot run '\(executable)': \(Errno.current)")
        return ExitCode.cannotRun
    }

    static func isEnvironmentName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(48...57).contains(first) else { return false }
        return name.utf8.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
    }
}

/// `authctl header NAME [--header-name H] [--scheme S]`: one HTTP header line for `curl -H @-`;
/// with `--method M --url URL` the lines for one request, `DPoP: PROOF` too for a DPoP account.
enum HeaderCommand: Command {
    static let name = "header"
    static let summary = "print the HTTP header lines carrying the access token (and a DPoP proof)"
    static let help = """
        usage: authctl header NAME [--header-name H] [--scheme S] [--min-ttl SECONDS]
                              [--scope S]... [--resource URI]... [--audience A]
               authctl header NAME --method M --url URL [--nonce N] [--min-ttl SECONDS]

        Prints `Authorization: Bearer TOKEN` (or the header you name) on stdout, for tools that
        read headers from a file or stdin, e.g.  authctl header work | curl -H @- URL
        Shopify Customer Account API (the token with no scheme):  authctl header shop --scheme ''

        With --method and --url, prints the lines for that one request: for a DPoP account
        `Authorization: DPoP TOKEN` and `DPoP: PROOF` (a proof signed by the daemon for M and
        URL, valid once and for a short time), for any other `Authorization: Bearer TOKEN`.
        A DPoP account needs --method and --url (docs/dpop.md).

        options:
          --header-name H    the header's name (default Authorization)
          --scheme S         the scheme before the token (default Bearer for Authorization,
                             none for any other header; --scheme '' for none)
          --method M         the HTTP method of the request the proof is for
          --url URL          its absolute https URL (http only for a loopback host)
          --nonce N          the resource server's DPoP-Nonce, when it asked for one
          --min-ttl SECONDS  the token must stay valid at least this long
        \(NarrowingOptions.help)
        """
    static let options: [CommandLineArguments.Option] =
        [
            .value("--header-name"), .value("--scheme"), .value("--min-ttl"), .value("--method"), .value("--url"),
            .value("--nonce"),
        ] + NarrowingOptions.options

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        let account = try context.checked(try requireAccountName(arguments, command: "authctl header"))
        let minTTL = try arguments.integer("--min-ttl", in: APIQueryParameter.minTTL.range)
        if let request = try proofRequest(arguments) {
            let headers = try ResourceRequestHeaders.fetch(account: account, request: request, minTTL: minTTL, context: context)
            Output.write(headers.lines.joined(separator: "\n") + "\n", to: STDOUT_FILENO)
            return ExitCode.success
        }
        let name = arguments.value("--header-name") ?? "Authorization"
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != 58 }) else {
            throw UsageError("--header-name needs a header field name, got '\(name)'")
        }
        let scheme = arguments.value("--scheme") ?? (name.lowercased() == "authorization" ? "Bearer" : "")
        guard scheme.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else { throw UsageError("--scheme must be one word") }
        let query = minTTL.map { [APIQueryParameter.minTTL: $0] } ?? [:]
        let token = try context.client.call(
            .token(account: account), query: query, narrowing: try NarrowingOptions.narrowing(arguments)
        )
        .bareToken(account: account, adapter: "authctl header without --method and --url")
        Output.line("\(name): " + (scheme.isEmpty ? token : "\(scheme) \(token)"))
        return ExitCode.success
    }

    /// The request of `--method` and `--url` (both or neither; not with `--header-name`/`--scheme`:
    /// RFC 9449 fixes both headers' names and the scheme).
    static func proofRequest(_ arguments: CommandLineArguments) throws(UsageError) -> DPoPProofRequest? {
        let method = arguments.value("--method")
        let url = arguments.value("--url")
        guard method != nil || url != nil || arguments.value("--nonce") != nil else { return nil }
        guard let method, let url else {
            throw UsageError("'authctl header' needs both --method and --url for one request's headers")
        }
        guard arguments.value("--header-name") == nil, arguments.value("--scheme") == nil else {
            throw UsageError("--header-name and --scheme do not combine with --method/--url (the headers of a request are fixed)")
        }
        return DPoPProofRequest(
            method: method, url: url, nonce: arguments.value("--nonce"), narrowing: try NarrowingOptions.narrowing(arguments))
    }
}

/// `authctl kube-credential NAME`: a client.authentication.k8s.io/v1 ExecCredential for kubectl.
enum KubeCredentialCommand: Command {
    static let name = "kube-credential"
    static let summary = "print a kubectl ExecCredential (client.authentication.k8s.io/v1)"
    static let help = """
        usage: authctl kube-credential NAME [--id-token] [--min-ttl SECONDS]
                                       [--scope S]... [--resource URI]... [--audience A]

        Prints an ExecCredential JSON object with status.token and status.expirationTimestamp,
        as kubectl's exec credential plugins do. In ~/.kube/config:

          users:
          - name: me
            user:
              exec:
                apiVersion: client.authentication.k8s.io/v1
                command: authctl
                args: [kube-credential, NAME]
                interactiveMode: Never

        options:
          --id-token         send the OpenID Connect ID token instead of the access token, for
                             API servers configured with --oidc-issuer-url / --oidc-client-id
          --min-ttl SECONDS  the token must stay valid at least this long (default 60)
        \(NarrowingOptions.help)
        """
    static let options: [CommandLineArguments.Option] = [.value("--min-ttl"), .flag("--id-token")] + NarrowingOptions.options

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        let account = try requireAccountName(arguments, command: "authctl kube-credential")
        let minTTL = try arguments.integer("--min-ttl", in: APIQueryParameter.minTTL.range) ?? 60
        let name = try context.checked(account)
        let narrowing = try NarrowingOptions.narrowing(arguments)
        let status: ExecCredential.Status
        if arguments.has("--id-token") {
            guard narrowing.isEmpty else { throw UsageError("--id-token takes no --scope, --resource or --audience") }
            let grant = try context.client.call(.idToken(account: name), query: [.minTTL: minTTL])
            status = .init(token: grant.idToken, expirationTimestamp: grant.expiresAt)
        } else {
            let grant = try context.client.call(.token(account: name), query: [.minTTL: minTTL], narrowing: narrowing)
            let token = try grant.bareToken(account: name, adapter: "authctl kube-credential (kubectl)")
            status = .init(token: token, expirationTimestamp: grant.expiresAt)
        }
        let credential = ExecCredential(status: status)
        Output.line(CommandContext.json(credential))
        return ExitCode.success
    }
}

/// The ExecCredential object of the Kubernetes client-go credential plugin protocol.
struct ExecCredential: Encodable {
    struct Status: Encodable {
        var token: String
        /// RFC 3339; omitted when the provider gave no lifetime (kubectl then asks every time).
        var expirationTimestamp: String?
    }

    var apiVersion = "client.authentication.k8s.io/v1"
    var kind = "ExecCredential"
    var status: Status
}
