import BrokerProtocol
@preconcurrency import Glibc
import WireFormats

/// `authctl login NAME [--no-browser] [--browser CMD] [--timeout SECONDS] [--device] [--no-register] [--new-subject]`,
/// `authctl login NAME --cancel`.
enum LoginCommand: Command {
    static let name = "login"
    static let summary = "sign in to an account in the browser (or with a device code)"
    static let help = """
        usage: authctl login NAME [--no-browser] [--browser CMD] [--timeout SECONDS] [--device]
                                  [--no-register] [--new-subject]
               authctl login NAME --cancel

        Asks the daemon to start a login and prints the authorization URL alone on its own
        line on stdout, opens it in a browser (below), then waits until the login completes,
        showing the time left on stderr when it is a terminal (and saying so when no browser was
        opened). A second `login` for an account with a login pending joins the first one. A
        login that times out leaves an account that still holds tokens active, with no error.

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
          --cancel           cancel the pending login of NAME (as Ctrl-C in the waiting
                             `authctl login` does) instead of starting one

        Ctrl-C while waiting cancels the login in the daemon too (no pending login is left
        behind) and exits 130.

        exit codes: 0 signed in, 1 denied or failed, 64 usage (an unusable browser command, or a
        login the daemon refused as invalid),
        69 daemon not running (or it stopped during the login: start it and log in again),
        75 timed out, 130 cancelled with Ctrl-C (--cancel: 0, 1 when no login was pending)
        """
    static let options: [CommandLineArguments.Option] = [
        .flag("--no-browser"), .value("--browser"), .value("--timeout"), .flag("--device"), .flag("--no-register"),
        .flag("--new-subject"), .flag("--cancel"),
    ]

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        try run(arguments, context: context, addScopes: nil)
    }

    /// The login; `addScopes` (from `authctl refresh --scope`) are asked for besides the account's scopes.
    static func run(_ arguments: CommandLineArguments, context: CommandContext, addScopes: [String]?) throws -> Int32 {
        let account = try context.checked(try requireAccountName(arguments, command: "authctl login"))
        if arguments.has("--cancel") {
            let status = try context.client.call(.cancelLogin(account: account))
            Output.note("Cancelled the pending login of '\(status.account)'.")
            return ExitCode.success
        }
        let timeout = try arguments.integer("--timeout", in: 1...3600) ?? 300
        let device = arguments.has("--device")
        let flag = try arguments.value("--browser").map { try BrowserCommand($0).template }
        let opensBrowser = !device && !arguments.has("--no-browser")
        let register = !device && !arguments.has("--no-register")
        // Read once, for the handler and the account's browser; skipped when neither is needed.
        let configuration =
            register || (opensBrowser && flag == nil) ? try context.client.call(.account(account)).configuration : nil
        // Resolved before the login starts: an unusable command is a usage error, not a login left waiting.
        let browser =
            opensBrowser
            ? try BrowserChoice.resolve(flag: flag, account: configuration?.browser, environment: context.environment) : nil
        // Before the login starts: the browser may redirect as soon as it opens the URL.
        if register, let configuration { try HandlerRegistration.ensure(configuration, context: context) }
        var deadline = ContinuousClock.now + .seconds(timeout)
        let started = try context.client.call(
            .login(account: account),
            body: LoginRequest(
                timeoutSeconds: timeout, device: device ? true : nil, newSubject: arguments.has("--new-subject") ? true : nil,
                addScopes: addScopes))

        // The daemon's deadline when sooner: a joined login keeps the first one's, a device code may expire first.
        if let expiresAt = RFC3339.parse(started.expiresAt) {
            let left = max(0, expiresAt - Double(time(nil)))
            deadline = min(deadline, ContinuousClock.now + .milliseconds(Int64(left * 1000)))
        }
        if let added = started.stepUpScopes, !added.isEmpty {
            // Chosen by a resource server (step-up), not by the user: said before anything opens.
            Output.note(
                "This login also asks for \(added.map(ShownText.escaped).joined(separator: " ")): a resource "
                    + "server asked for them (step-up). If you did not expect that, cancel (Ctrl-C) and see: authctl status \(account)"
            )
        }
        if let userCode = started.userCode {
            Output.note(
                "To sign in, visit \(started.verificationURI ?? started.authorizationURL) and enter the code: \(userCode)")
        }
        Output.line(started.authorizationURL)
        if !device, browser?.candidates.isEmpty ?? true {
            let why = browser == nil ? "--no-browser" : "no display, and no --browser, AUTHBROKER_BROWSER or BROWSER"
            Output.note("No browser opened (\(why)): open the URL above yourself.")
        }
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
            started: started, account: account, context: context, deadline: deadline,
            browser: page.flatMap { page in browser.map { BrowserLaunch($0, url: page.fileURL) } }, acceptsPaste: !device)
        if let pageFailure { Output.error(wait.advice(after: pageFailure)) }
        return wait.run()
    }
}

/// The wait's progress on stderr: on a terminal, one line redrawn in place with the time left
/// ("| Waiting for the login to complete… 4:32 left (Ctrl-C to stop)"); when the user may be
/// typing a pasted address on that terminal, a plain line each minute instead (a redraw would
/// write over the paste); nothing when stderr is no terminal (a log gets the outcome only).
struct Spinner {
    enum Mode { case inPlace, everyMinute, silent }
    private let mode: Mode
    private let message: String
    private let deadline: ContinuousClock.Instant
    private var frame = 0
    private var drawn = false
    private var lastMinuteShown: Int64?
    private static let frames = ["|", "/", "-", "\\"]

    init(mode: Mode, message: String, deadline: ContinuousClock.Instant) {
        self.mode = mode
        self.message = message
        self.deadline = deadline
        lastMinuteShown = Self.secondsLeft(until: deadline) / 60
    }

    /// Whole seconds until `deadline`, rounded up, never negative.
    static func secondsLeft(until deadline: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (deadline - ContinuousClock.now).components
        return max(0, seconds + (attoseconds > 0 ? 1 : 0))
    }

    /// "4:32 left", "0:05 left".
    static func left(_ seconds: Int64) -> String {
        let rest = seconds % 60
        return "\(seconds / 60):\(rest < 10 ? "0" : "")\(rest) left"
    }

    mutating func tick() {
        let seconds = Self.secondsLeft(until: deadline)
        switch mode {
        case .silent:
            return
        case .inPlace:
            Output.write(
                "\r\(Self.frames[frame % 4]) \(message)… \(Self.left(seconds)) (Ctrl-C to stop)\u{1B}[K", to: STDERR_FILENO)
            frame += 1
            drawn = true
        case .everyMinute:
            // Once per whole minute left, not at the start (the opening note says it).
            let minute = seconds / 60
            guard minute < lastMinuteShown ?? .max, seconds > 0 else { return }
            lastMinuteShown = minute
            Output.note("Still waiting for the login: \(Self.left(seconds)).")
        }
    }

    mutating func finish() {
        guard drawn else { return }
        Output.write("\r\u{1B}[K", to: STDERR_FILENO)
        drawn = false
    }
}
