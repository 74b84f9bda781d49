import BrokerProtocol
@preconcurrency import Glibc
import WireFormats

/// `authctl account add|list|remove|show`.
enum AccountCommand: Command {
    static let name = "account"
    static let summary = "add, list, show, remove or apply (declarative) accounts"
    static let help = """
        usage: authctl account add NAME --issuer URL --client-id ID [options]
               authctl account add NAME --resource-url URL [--client-id ID | --client-metadata-url URL]
               authctl account add NAME --provider PRESET --client-id ID [preset options] [options]
               authctl account add --provider help
               authctl account list [--json]
               authctl account show NAME [--json]
               authctl account update NAME [add options] [--no-FIELD ...] [--client-secret-file FILE|
                                      --no-client-secret] [--yes] [--code CODE]
               authctl account remove NAME
               authctl account register-handler NAME
               authctl account apply FILE.json|- [--dry-run] [--prune] [--code CODE]

        add options:
          --provider PRESET            fill in a provider's issuer, scopes, endpoints, parameters and
                                       redirect (shopify, workos, workos-connect, github, gitlab,
                                       google, microsoft, keycloak, okta, auth0, dex,
                                       django-oauth-toolkit; `--provider help` lists them); the
                                       options below override what it fills in
          --shop-domain DOMAIN         with --provider shopify: the shop's domain
                                       (SHOP.myshopify.com or a custom domain), where discovery is
          --authkit-domain DOMAIN      with --provider workos-connect: the AuthKit domain
                                       (SUBDOMAIN.authkit.app or a custom auth domain)
          --gitlab-url URL             with --provider gitlab: a self-managed GitLab (default
                                       https://gitlab.com)
          --tenant T                   with --provider microsoft: a tenant id or verified domain,
                                       organizations, common or consumers
          --realm-url URL              with --provider keycloak: https://HOST/realms/REALM
          --okta-domain DOMAIN         with --provider okta: the org's domain (ORG.okta.com)
          --auth0-domain DOMAIN        with --provider auth0: the tenant's domain (also needs
                                       --audience)
          --dex-url URL                with --provider dex: Dex's issuer URL
          --dot-url URL                with --provider django-oauth-toolkit: its URL prefix
                                       (https://HOST/o)
          --issuer URL                 the provider's issuer (discovery runs at once)
          --client-id ID               the OAuth client id registered for authbroker
          --client-secret-file FILE    confidential clients: a file holding the secret
          --scope S                    a scope to request (repeatable; default: openid)
          --audience A                 the `audience` authorization parameter (Auth0 style;
                                       required with --provider auth0)
          --redirect-host H            127.0.0.1 (default), localhost or ::1
          --redirect-port N            a fixed port, for providers that need an exact URI
          --redirect-path P            default /callback
          --redirect-uri URI           a private-use scheme redirect instead of the loopback
                                       one (e.g. shop.4242.app://callback); the desktop hands
                                       it to `authctl callback`
          --param KEY=VALUE            extra authorization parameter (repeatable)
          --authorization-endpoint URL, --token-endpoint URL, --revocation-endpoint URL,
          --userinfo-endpoint URL, --device-authorization-endpoint URL,
          --end-session-endpoint URL, --jwks-uri URL, --par-endpoint URL
                                       manual endpoints for providers without discovery
          --discovery-url URL          fetch the discovery document here instead of under
                                       the issuer (Shopify: the shop's domain)
          --git-url-prefix URL         answer `authctl git-credential` for git remotes
                                       starting with URL (e.g. https://git.example.com/)
          --git-username NAME          the username git-credential answers (default oauth2)
          --token-request-format F     form (default, RFC 6749) or json (WorkOS User
                                       Management's authenticate endpoint; no default scope)
          --token-endpoint-auth-method M
                                       how the client secret is sent: client_secret_basic or
                                       client_secret_post (default: basic unless the metadata
                                       offers only post; --provider github: post)
          --par MODE                   pushed authorization requests (RFC 9126): auto
                                       (default: when the provider lists an endpoint),
                                       always, or never (refused by providers that require it)
          --dpop                       sender-constrained tokens (RFC 9449): each login makes
                                       a P-256 key, sealed in the vault, that proves every
                                       token request; programs get proofs, never the key
                                       (docs/security.md). Off by default
          --browser CMD                how `authctl login` opens this account's login page,
                                       e.g. 'firefox -P work' or 'chromium --app=%s': run
                                       with sh -c, %s is the URL (appended when absent); see
                                       `authctl login --help`
          --pin-sha256 PIN             (repeatable, for rotation) every provider endpoint's
                                       verified certificate chain must also carry this key:
                                       base64 SHA-256 of a SubjectPublicKeyInfo, as curl's
                                       --pinnedpubkey sha256//PIN (docs/security.md)
          --tenant-allow GUID          (repeatable) with a multi-tenant Microsoft Entra issuer
                                       (…/common/v2.0, organizations, consumers): only users
                                       of these tenants (tid) may log in (docs/providers.md)
          --resource-url URL           the protected resource (an MCP server) the tokens are
                                       for, sent as RFC 8707 `resource` on the login, the code
                                       exchange and every refresh
          --no-resource-parameter      with --resource-url: send no `resource` parameter
                                       (Microsoft Entra v2 refuses it)
                                       Without --issuer the daemon asks the resource: its 401
                                       challenge or /.well-known/oauth-protected-resource
                                       (RFC 9728) names the authorization server, whose
                                       metadata must offer PKCE S256; scopes come from the
                                       challenge or the metadata unless --scope. The client:
                                       --client-id if given, else --client-metadata-url when the
                                       server accepts metadata documents, else RFC 7591 dynamic
                                       registration on a fixed loopback port, kept in the vault
                                       and deleted (RFC 7592) by `account remove`
          --client-metadata-url URL    with --resource-url: a Client ID Metadata Document whose
                                       URL is the client id
          --allow-narrowing            allow narrowed tokens (authctl token --scope/--resource/
                                       --audience). Each spends the refresh token on a narrowed
                                       refresh; a provider that then keeps only the narrowed
                                       scope for good (django-oauth-toolkit does) loses the rest
                                       until the next login. Only for providers that keep the
                                       original grant (RFC 6749 §6); google and microsoft
                                       presets allow it already
          --allow-resource URI         (repeatable) a resource callers may ask narrowed tokens
                                       for (token --resource URI; on Entra the scope
                                       URI/.default); none by default (narrowing_not_allowed)
          --allow-audience A           (repeatable) an audience callers may ask narrowed
                                       tokens for (token --audience A); none by default
          --allow-exe PATH             (repeatable) only programs whose executable is PATH
                                       (absolute, as /proc/PID/exe names it: `readlink -f`) get
                                       the account's tokens; others get caller_not_allowed. The
                                       file a program runs must be the file at PATH as the
                                       daemon sees it (same device and inode)
          --confirm                    each new program must be approved once per daemon boot
                                       (`authctl approve`) before it gets a token
          --allow-other-namespaces     with --allow-exe or --confirm: also judge programs in
                                       another mount or user namespace than the daemon's (a
                                       container, unshare) by the file they run; without it
                                       they are refused as undetermined

        `update` changes the fields its options name and keeps the others: every add option but
        --provider and the preset options (--scope, --param, --allow-exe and the other repeatable
        options replace their list; an endpoint option sets that endpoint), and these clear a
        field back to its default:
        \(updateClearingHelp)
        The client secret is kept unless --client-secret-file replaces it or --no-client-secret
        removes it (one of them is needed with a new issuer, discovery URL, endpoint or client id:
        the sealed secret is never sent to another provider). A change to a field that is not
        token-neutral signs the account out (its tokens were granted to the old configuration):
        authctl says so first, asks on a terminal ("[y/N]") and elsewhere refuses unless --yes.
        Token-neutral fields (a change keeps the tokens):
        \(tokenNeutralHelp)
        Not a sandbox: docs/security.md, "Caller policy". Loosening the caller policy of an
        account that has one (a program added to --allow-exe, the list removed, --no-confirm)
        needs the one-time code the daemon then shows in the notification (the notify hook's
        AUTHBROKER_APPROVAL_CODE): authctl asks for it on the terminal, or run the same command
        again with --code CODE (`apply` too). Keeping only some entries of the list or turning
        --confirm on needs none.

        `apply` makes the accounts match FILE.json, or standard input for - ({"accounts": [CONFIG,
        ...]}, CONFIG as in POST /v1/accounts with client_secret_file instead of client_secret,
        which is refused inline; see docs/guide.md). Each entry is the whole configuration: a
        field left out takes its default. The whole file is checked first (an unknown key, a wrong
        type or a syntax error is reported as FILE:LINE:COLUMN, with "did you mean"), then every
        entry by the daemon; nothing changes unless all pass. --dry-run prints the plan and
        changes nothing: add, update (keeps tokens | signs out | no tokens), remove, unchanged or
        unlisted, then the name. Otherwise it adds, updates and (with --prune) removes, and prints
        one line per account: added, updated, signed-out, removed, unchanged or unlisted. Accounts
        the file does not list are removed only with --prune; without it they are kept and listed
        as unlisted. When a step fails, the steps done are rolled back (added accounts removed,
        updated ones given their old configuration) and authctl names the failing entry and what
        could not be undone (deleted tokens, a removed account). Sign-outs follow the same
        token-neutral list as `update`.

        `show` prints the state, every configuration field that is set (never the client secret),
        the expiry and the subject.

        `register-handler` makes authctl the desktop's handler of the scheme of the account's
        private-use redirect_uri (a desktop entry in $XDG_DATA_HOME/applications and the default
        in $XDG_CONFIG_HOME/mimeapps.list), as `authctl login` does unless --no-register.

        `remove` logs the account out first, and removes the handler of its redirect_uri's
        scheme when no other account uses that scheme. The client secret is sealed by the daemon and
        never shown again.
        """
    /// `update`'s clearing options, wrapped for the help text.
    static var updateClearingHelp: String { helpList(clearingOptions.map(\.flag)) }
    /// `AccountConfiguration.tokenNeutralFields`, wrapped for the help text (the one list).
    static var tokenNeutralHelp: String { helpList(AccountConfiguration.tokenNeutralFields) }

    /// `words` joined with commas, wrapped to 80 columns.
    static func helpList(_ words: [String]) -> String {
        var lines = [""]
        for (index, word) in words.enumerated() {
            let item = word + (index == words.count - 1 ? "." : ",")
            if !lines[lines.count - 1].isEmpty, lines[lines.count - 1].count + 1 + item.count > 80 { lines.append("") }
            lines[lines.count - 1] += (lines[lines.count - 1].isEmpty ? "" : " ") + item
        }
        return lines.joined(separator: "\n")
    }

    static let addOptions: [CommandLineArguments.Option] =
        presetOptions + fieldOptions + [.value("--client-secret-file")]
        + resourceOptions
    // Parsed per subcommand in `run`; the top level only sees the subcommand and its words.
    static let options: [CommandLineArguments.Option] = []

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        guard let sub = arguments.positionals.first else {
            throw UsageError("'authctl account' needs a subcommand: add, list, show, update, remove, apply or register-handler")
        }
        let rest = Array(arguments.positionals.dropFirst())
        switch sub {
        case "add":
            return try add(CommandLineArguments(rest, command: "authctl account add", options: addOptions), context)
        case "list":
            let parsed = try CommandLineArguments(rest, command: "authctl account list", options: [.flag("--json")])
            return try list(parsed, context)
        case "show":
            let parsed = try CommandLineArguments(rest, command: "authctl account show", options: [.flag("--json")])
            return try show(parsed, context)
        case "update":
            return try update(CommandLineArguments(rest, command: "authctl account update", options: updateOptions), context)
        case "remove":
            return try remove(CommandLineArguments(rest, command: "authctl account remove", options: []), context)
        case "register-handler":
            let parsed = try CommandLineArguments(rest, command: "authctl account register-handler", options: [])
            let account = try context.checked(try requireAccountName(parsed, command: "authctl account register-handler"))
            guard let configuration = try context.client.call(.account(account)).configuration else { return ExitCode.failure }
            try HandlerRegistration.ensure(configuration, context: context, explicit: true)
            return ExitCode.success
        case "apply":
            let parsed = try CommandLineArguments(rest, command: "authctl account apply", options: applyOptions)
            return try apply(parsed, context)
        default:
            throw UsageError("unknown subcommand 'account \(sub)'; see: authctl account --help")
        }
    }

    static func add(_ arguments: CommandLineArguments, _ context: CommandContext) throws -> Int32 {
        if arguments.value("--provider") == "help" {
            Output.line(presetList())
            return ExitCode.success
        }
        let account = try requireAccountName(arguments, command: "authctl account add")
        if let problem = AccountName.problem(with: account) { throw UsageError("invalid account name '\(account)': \(problem)") }
        let preset = try selectedPreset(arguments)
        // A resource's URL alone: the daemon discovers the server and obtains the client.
        let fromResource = arguments.value("--resource-url") != nil && arguments.value("--issuer") == nil && preset == nil
        guard let clientID = arguments.value("--client-id") ?? (fromResource ? "" : nil) else {
            let more = preset != nil || arguments.value("--issuer") != nil ? "" : " and --issuer URL (or --provider PRESET)"
            throw UsageError(
                "'authctl account add' needs --client-id ID" + more
                    + (arguments.value("--resource-url") != nil
                        ? " (or leave out --issuer: the daemon then finds the server)" : ""))
        }
        // With a preset the issuer may come from it (`apply`, below): empty until then.
        guard let issuer = arguments.value("--issuer") ?? preset.map({ _ in "" }) ?? (fromResource ? "" : nil) else {
            throw UsageError(
                "'authctl account add' needs --issuer URL, or --provider PRESET (see: authctl account add "
                    + "--provider help), or --resource-url URL")
        }
        var configuration = AccountConfiguration(name: account, issuer: issuer, clientID: clientID)
        try setFields(arguments, on: &configuration)
        try applyResource(arguments, to: &configuration)
        if configuration.scopes.isEmpty { configuration.scopes = configuration.defaultScopes }
        if let preset { try apply(preset, to: &configuration, arguments, context) }
        let added = try context.client.call(.addAccount, body: configuration)
        if fromResource, let kept = added.configuration {
            Output.note(
                "Resource \(kept.resourceURL ?? "-"): authorization server \(kept.issuer), client "
                    + "\(kept.clientRegistration?.rawValue ?? "preregistered") (\(kept.clientID)).")
        }
        Output.note("Added account '\(account)'. Sign in with: authctl login \(account)")
        if let warning = DPoPAdvice.warning(for: configuration, advertised: added.dpopSigningAlgValuesSupported) {
            Output.note(warning)
        }
        return ExitCode.success
    }

    /// Removes the account, then the desktop handler of its redirect scheme if no account is left
    /// that uses it (read before the removal: the daemon forgets the configuration).
    static func remove(_ arguments: CommandLineArguments, _ context: CommandContext) throws -> Int32 {
        let account = try context.checked(try requireAccountName(arguments, command: "authctl account remove"))
        let removed = try context.client.call(.account(account)).configuration
        _ = try context.client.call(.removeAccount(account))
        Output.note("Removed account '\(account)'.")
        if let removed, removed.redirectURI != nil {
            let remaining = try context.client.call(.listAccounts).accounts.compactMap(\.configuration)
            try HandlerRegistration.removeUnused(removed, remaining: remaining, context: context)
        }
        return ExitCode.success
    }

    static func list(_ arguments: CommandLineArguments, _ context: CommandContext) throws -> Int32 {
        let list = try context.client.call(.listAccounts)
        if arguments.has("--json") {
            Output.line(CommandContext.json(list))
        } else {
            StatusCommand.printTable(list.accounts)
        }
        return ExitCode.success
    }

    static func show(_ arguments: CommandLineArguments, _ context: CommandContext) throws -> Int32 {
        let account = try requireAccountName(arguments, command: "authctl account show")
        let status = try context.client.call(.account(try context.checked(account)))
        if arguments.has("--json") {
            Output.line(CommandContext.json(status))
            return ExitCode.success
        }
        var lines = ["name: \(status.name)", "state: \(status.state.rawValue)"]
        if let configuration = status.configuration {
            lines += [
                "issuer: \(configuration.issuer)", "client_id: \(configuration.clientID)",
                "scopes: \(configuration.scopes.joined(separator: " "))",
            ]
            if let browser = configuration.browser { lines.append("browser: \(browser)") }
        }
        if let configuration = status.configuration { lines += setFields(of: configuration, except: lines) }
        lines.append("expires_at: \(status.expiresAt ?? "-")")
        lines.append("subject: \(status.subject ?? "-")")
        Output.line(lines.joined(separator: "\n"))
        return ExitCode.success
    }
}

extension AccountCommand {
    /// "key: value" for every field of `configuration` that is set and not among the `shown`
    /// lines yet, in key order, from its JSON encoding (so a new field is shown without a list to
    /// update): strings as they are, lists space-separated, `extra_parameters` as KEY=VALUE, each
    /// manual endpoint on its own line.
    static func setFields(of configuration: AccountConfiguration, except shownLines: [String]) -> [String] {
        let shown = Set(shownLines.compactMap { $0.split(separator: ":", maxSplits: 1).first.map(String.init) })
        guard case .object(let fields)? = try? WireJSON.encodeValue(configuration.withoutSecret) else { return [] }
        var lines: [String] = []
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) where !shown.contains(key) {
            switch value {
            case .object(let members) where key == "endpoints":
                lines += members.sorted { $0.key < $1.key }.map { "\($0.key): \(text($0.value))" }
            case .object(let members):
                if !members.isEmpty {
                    lines.append(
                        "\(key): "
                            + members.sorted { $0.key < $1.key }.map { "\($0.key)=\(text($0.value))" }.joined(separator: " "))
                }
            case .array(let items):
                if !items.isEmpty { lines.append("\(key): " + items.map(text).joined(separator: " ")) }
            case .null:
                continue
            default:
                lines.append("\(key): \(text(value))")
            }
        }
        return lines
    }

    private static func text(_ value: JSONValue) -> String {
        if case .string(let string) = value { return string }
        return String(decoding: WireJSON.serialize(value), as: UTF8.self)
    }
}
