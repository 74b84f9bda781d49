import BrokerProtocol
@preconcurrency import Glibc

/// `authctl login NAME [--no-browser] [--browser CMD] [--timeout SECONDS] [--device] [--no-register] [--new-subject]`.
enum LoginCommand: Command {
    static let name = "login"
    static let summary = "sign in to an account in the browser (or with a device code)"
    static let help = """
        usage: authctl login NAME [--no-browser] [--browser CMD] [--timeout SECONDS] [--device]
                                  [--no-register] [--new-subject]

        Asks the daemon to start a login and prints the authorization URL alone on its own
        line on stdout, opens it in a browser (below), then waits until the login completes.
        A second `login` for an account with a login pending joins the first one.

        The browser: --browser CMD, else the account's browser (account add --browser), else
        $AUTHBROKER_BROWSER, else $BROWSER (a list separated by ':', tried in order while each
        fails), else xdg-open when there is a display. A command runs with `sh -c` (quote as in
        a shell), even without a display: %s stands for the URL (write it unquoted: it becomes
        "$1", one word the shell never parses), %% for a %, and without %s the URL is appended,
        e.g. 'firefox -P work --new-window' or 'chromium --app=%s'. It runs with no terminal
        (stdin and output on /dev/null). When it exits with a status other than 0, authctl says
        so once and keeps waiting. The browser is not given the URL itself (other users can read
        a command line) but file:///…/login.html, a page only you can read that forwards to it,
        in a new 0700 directory under $XDG_RUNTIME_DIR (else $TMPDIR or /tmp), removed when
        authctl ends.

        An account that holds tokens keeps its user: a login in which the provider signs in
        another user (another ID token `sub` or userinfo subject) fails and the old tokens stay,
        unless --new-subject is given.

        While waiting on a terminal, paste the address the browser ended on and press Enter
        (http://127.0.0.1:PORT/callback?… from a browser on another machine, or the app's
        scheme://callback?… it could not open): authctl hands it to the daemon, which checks it
        as it would the redirect itself. Without a terminal use `authctl callback URL`.

        options:
          --no-browser       only print the URL; open it yourself (a browser on another
                             machine ends on a page that does not load: paste its address)
          --browser CMD      open the URL with CMD for this login (see above)
          --timeout SECONDS  give up after SECONDS (1 to 3600, default 300)
          --device           use the device authorization grant: prints a code to enter at
                             the provider's verification page, for hosts without a browser
          --no-register      for an account with a private-use redirect_uri, do not register
                             authctl as the desktop's handler of its scheme (see
                             `authctl account register-handler`)
          --new-subject      accept a login as another user than the account's current one
                             (its tokens are then replaced)

        exit codes: 0 signed in, 1 denied or invalid, 64 usage (an unusable browser command),
        69 daemon not running, 75 timed out
        """
    static let options: [CommandLineArguments.Option] = [
        .flag("--no-browser"), .value("--browser"), .value("--timeout"), .flag("--device"), .flag("--no-register"),
        .flag("--new-subject"),
    ]

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        try run(arguments, context: context, addScopes: nil)
    }

    /// The login; `addScopes` (from `authctl refresh --scope`) are asked for besides the account's scopes.
    static func run(_ arguments: CommandLineArguments, context: CommandContext, addScopes: [String]?) throws -> Int32 {
        let account = try context.checked(try requireAccountName(arguments, command: "authctl login"))
        let timeout = try arguments.integer("--timeout", in: 1...3600) ?? 300
        let device = arguments.has("--device")
        let flag = try arguments.value("--browser").map { try BrowserCommand($0).template }
        let opensBrowser = !device && !arguments.has("--no-browser")
        let register = !device && !arguments.has("--no-register")
        // Read once, for the handler and the account's browser; skipped when neither is needed.
        let configuration =
            register || (opensBrowser && flag == nil) ? try context.client.call(.account(account)).configuration : nil
        // Resolved before the login starts: an unusable command is a usage error, not a login left waiting.
        let browser = opensBrowser
            ? try BrowserChoice.resolve(flag: flag, account: configuration?.browser, environment: context.environment) : nil
        // Before the login starts: the browser may redirect as soon as it opens the URL.
        if register, let configuration { try HandlerRegistration.ensure(configuration, context: context) }
        let started = try context.client.call(
            .login(account: account),
            body: LoginRequest(
                timeoutSeconds: timeout, device: device ? true : nil, newSubject: arguments.has("--new-subject") ? true : nil,
                addScopes: addScopes))

        if let userCode = started.userCode {
            Output.note("To sign in, visit \(started.verificationURI ?? started.authorizationURL) and enter the code: \(userCode)")
        }
        Output.line(started.authorizationURL)
        // The browser gets a private page's file:// URL, never the URL in its argv (LoginPage).
        var page: LoginPage?
        var pageFailure: String?
        if browser != nil {
            do throws(LoginPageError) {
                page = try LoginPage(redirectingTo: started.authorizationURL, environment: context.environment)
            } catch {
                pageFailure = "cannot write the page that hands it the URL (\(error))"
            }
        }
        defer { page?.remove() }
        var wait = LoginWait(
            started: started, account: account, context: context,
            browser: page.flatMap { page in browser.map { BrowserLaunch($0, url: page.fileURL) } }, acceptsPaste: !device)
        if let pageFailure { Output.error(wait.advice(after: pageFailure)) }
        return wait.run()
    }
}

/// A one-line spinner on stderr, redrawn in place; silent when stderr is not a terminal.
struct Spinner {
    private let enabled: Bool
    private let message: String
    private var frame = 0
    private var drawn = false
    private static let frames = ["|", "/", "-", "\\"]

    init(enabled: Bool, message: String) {
        self.enabled = enabled
        self.message = message
    }

    mutating func tick() {
        guard enabled else { return }
        Output.write("\r\(Self.frames[frame % 4]) \(message)… (Ctrl-C to stop waiting)", to: STDERR_FILENO)
        frame += 1
        drawn = true
    }

    mutating func finish() {
        guard drawn else { return }
        Output.write("\r\u{1B}[K", to: STDERR_FILENO)
        drawn = false
    }
}
