import BrokerProtocol
@preconcurrency import Glibc

/// `authctl callback URL`: what the desktop runs (`Exec=authctl callback %u`) when the browser hands
/// it a private-use scheme redirect (RFC 8252 §7.1).
enum CallbackCommand: Command {
    static let name = "callback"
    static let summary = "hand a redirect URL to the waiting login (private-use scheme or loopback)"
    static let help = """
        usage: authctl callback URL

        Sends the redirect URL (e.g. shop.4242.app://callback?code=…&state=…) to the daemon,
        which completes the pending login whose state it carries: the same checks and code
        exchange as a loopback redirect. The desktop runs this for the account's scheme; run it
        yourself with a URL the browser could not open (over SSH, copy it from the address bar
        or the browser's "open with" prompt), or with the http://127.0.0.1:PORT/callback?… a
        browser on another machine ended on (quote it: it holds '&'). The waiting
        `authctl login` finishes too. Without a
        terminal on stdout (launched by the browser) the outcome is also shown with notify-send.

        exit codes: 0 signed in, 1 refused or failed (no pending login with this state, a
        redirect used twice, the provider's error), 64 usage, 69 daemon not running
        """
    static let options: [CommandLineArguments.Option] = []

    /// The daemon waits for the code exchange; a browser-launched handler must not hang around longer.
    static let timeoutSeconds: Double = 40

    static func run(_ arguments: CommandLineArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.count == 1, let url = arguments.positionals.first, !url.isEmpty else {
            throw UsageError("'authctl callback' takes one redirect URL; see: authctl callback --help")
        }
        guard url.utf8.count <= 16 * 1024 else { throw UsageError("the redirect URL is longer than 16 KiB") }
        let (code, message) = outcome(of: url, context: context)
        if code == ExitCode.success { Output.note(message) } else { Output.error(message) }
        if isatty(STDOUT_FILENO) != 1 { DesktopNotification.show(summary: "authctl", body: message) }
        return code
    }

    /// The exit code and the one line for the user; never the URL (it holds the code).
    static func outcome(of url: String, context: CommandContext) -> (Int32, String) {
        let status: LoginStatus
        do {
            status = try context.client.call(.loginCallback, body: LoginCallbackRequest(url: url), timeout: timeoutSeconds)
        } catch {
            return (error.exitCode == ExitCode.daemonUnavailable ? error.exitCode : ExitCode.failure, "\(error)")
        }
        let account = status.account
        switch status.outcome {
        case .succeeded:
            return (ExitCode.success, "Signed in to '\(account)'" + (status.subject.map { " as \($0)" } ?? "") + ".")
        case .failed, .timedOut:
            return (ExitCode.failure, LoginWait.failure(of: account, status.error))
        case .pending:
            return (ExitCode.failure, "login to '\(account)' is still completing; check with: authctl status \(account)")
        }
    }
}

/// A desktop notification through notify-send (libnotify), for handlers the browser launched
/// without a terminal. Best effort: without notify-send (or a notification daemon) nothing is shown.
enum DesktopNotification {
    static func show(summary: String, body: String) {
        // spawn fails when notify-send is not on PATH: that is the "exists" check.
        guard let child = DetachedChild.spawn(["notify-send", "--app-name=authctl", summary, body]) else { return }
        // Reaped when it is done within 3 s (it returns once the notification daemon has the
        // message); never longer: a browser-launched handler must return within seconds.
        for _ in 0..<60 {
            if child.exitStatus() != nil { return }
            usleep(50_000)
        }
    }
}
