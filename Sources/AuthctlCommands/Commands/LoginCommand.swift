import BrokerProtocol
@preconcurrency import Glibc

/// `authctl login NAME [--no-browser] [--timeout SECONDS] [--device] [--no-register]`.
enum LoginCommand: Command {
    static let name = "login"
    static let summary = "sign in to an account in the browser (or with a device code)"
    static let help = """
        usage: authctl login NAME [--no-browser] [--timeout SECONDS] [--device] [--no-register]

        Asks the daemon to start a login and prints the authorization URL alone on its own
        line on stdout. Opens it with xdg-open unless --no-browser is given or there is no
        display, then waits until the login completes. A second `login` for an account with a
        login pending joins the first one.

        options:
          --no-browser       only print the URL; open it in a browser on this machine (the
                             provider redirects to this machine's loopback address)
          --timeout SECONDS  give up after SECONDS (1 to 3600, default 300)
          --device           use the device authorization grant: prints a code to enter at
                             the provider's verification page, for hosts without a browser
          --no-register      for an account with a private-use redirect_uri, do not register
                             authctl as the desktop's handler of its scheme (see
                             `authctl account register-handler`)

        exit codes: 0 signed in, 1 denied or invalid, 69 daemon not running, 75 timed out
        """
    static let options: [CommandLineArguments.Option] = [
        .flag("--no-browser"), .value("--timeout"), .flag("--device"), .flag("--no-register"),
    ]

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        let account = try requireAccountName(arguments, command: "authctl login")
        let timeout = try arguments.integer("--timeout", in: 1...3600) ?? 300
        let device = arguments.has("--device")
        // Before the login starts: the browser may redirect as soon as it opens the URL.
        if !device, !arguments.has("--no-register") {
            try registerHandler(account: try context.checked(account), context: context)
        }
        let started = try context.client.call(
            .login(account: try context.checked(account)),
            body: LoginRequest(timeoutSeconds: timeout, device: device ? true : nil))

        if let userCode = started.userCode {
            Output.note("To sign in, visit \(started.verificationURI ?? started.authorizationURL) and enter the code: \(userCode)")
        }
        Output.line(started.authorizationURL)
        if !device, !arguments.has("--no-browser"), Browser.canOpen(environment: context.environment) {
            Browser.open(started.authorizationURL)
        }
        return wait(for: started, account: account, context: context)
    }

    /// Makes sure the desktop hands this account's private-use redirect to `authctl callback`.
    static func registerHandler(account: String, context: CommandContext) throws {
        guard let configuration = try context.client.call(.account(account)).configuration else { return }
        try HandlerRegistration.ensure(configuration, context: context)
    }

    /// Long-polls the daemon until the login ends, with a spinner on a terminal.
    static func wait(for started: LoginStarted, account: String, context: CommandContext) -> Int32 {
        var spinner = Spinner(enabled: Output.stderrIsTerminal, message: "Waiting for the login to complete")
        defer { spinner.finish() }
        while true {
            let status: LoginStatus
            do {
                status = try context.client.call(.loginStatus(id: started.loginID), query: [.wait: 1], timeout: 10)
            } catch {
                spinner.finish()
                Output.error("\(error)")
                return error.exitCode
            }
            switch status.outcome {
            case .pending:
                spinner.tick()
            case .succeeded:
                spinner.finish()
                Output.note("Signed in to '\(account)'" + (status.subject.map { " as \($0)" } ?? "") + ".")
                return ExitCode.success
            case .failed:
                spinner.finish()
                Output.error("login to '\(account)' failed: \(status.error?.message ?? "no reason given")")
                return ExitCode.failure
            case .timedOut:
                spinner.finish()
                Output.error("login to '\(account)' timed out. Run again: authctl login \(account)")
                return ExitCode.temporaryFailure
            }
        }
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

/// Opens URLs in the user's browser through xdg-open.
enum Browser {
    static func canOpen(environment: [String: String]) -> Bool {
        environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil
    }

    /// Starts xdg-open detached, its output discarded; failure only costs the user a click.
    static func open(_ url: String) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
        }
        var pid: pid_t = 0
        let words: [String] = ["xdg-open", url]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        if posix_spawnp(&pid, "xdg-open", &actions, nil, argv, environ) != 0 {
            Output.note("Could not start xdg-open; open the URL above yourself.")
        }
    }
}
