import BrokerProtocol

/// `authctl login`'s wait: long-polls the daemon until the login ends and, between polls (at
/// most a second apart), watches the browser it started and reads what the user pastes. One
/// thread, no blocking read: `PastedLines` polls stdin, `BrowserLaunch` reaps with WNOHANG.
struct LoginWait {
    let started: LoginStarted
    let account: String
    let context: CommandContext
    var browser: BrowserLaunch?
    var pasted: PastedLines

    init(started: LoginStarted, account: String, context: CommandContext, browser: BrowserLaunch?, acceptsPaste: Bool) {
        self.started = started
        self.account = account
        self.context = context
        self.browser = browser
        pasted = PastedLines()
        if !acceptsPaste { pasted.close() }
    }

    mutating func run() -> Int32 {
        // The spinner redraws its line and would write over what the user is pasting.
        var spinner = Spinner(enabled: Output.stderrIsTerminal && !pasted.isOpen, message: "Waiting for the login to complete")
        defer { spinner.finish() }
        if pasted.isOpen && pasted.isForeground {
            Output.note("Waiting for the login to complete (Ctrl-C to stop), or paste the address your browser ended on and press Enter.")
        }
        while true {
            if let failure = browser?.failure() {
                spinner.finish()
                Output.error(advice(after: failure))
            }
            for line in pasted.available() {
                if let exit = hand(line) { return exit }
            }
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

    /// One line: what failed (never the URL) and what to do instead; the login keeps waiting.
    func advice(after failure: String) -> String {
        let handOver = pasted.isOpen
            ? "paste the address the browser ends on here and press Enter"
            : "hand the address the browser ends on to `authctl callback URL`"
        return "could not open the browser: \(failure). Open the URL above yourself and \(handOver); "
            + "or, if the provider supports the device grant, run: authctl login \(account) --device"
    }

    /// Hands a pasted line to the daemon (`POST /v1/logins/callback`, as `authctl callback` does).
    /// A URL no pending login claims changes nothing: say why and keep waiting. One that ends
    /// this login is reported by the next status poll. Returns an exit code only when the daemon is gone.
    func hand(_ line: PastedLines.Line) -> Int32? {
        guard case .text(let url) = line else {
            Output.error("that line is longer than 16 KiB, so it is no redirect address; still waiting")
            return nil
        }
        let status: LoginStatus
        do {
            status = try context.client.call(
                .loginCallback, body: LoginCallbackRequest(url: url), timeout: CallbackCommand.timeoutSeconds)
        } catch .api(let error) where error.code == .invalidRequest {
            // Another origin, path or state, or a redirect used already: no pending login took it.
            Output.error(
                "that is not the redirect of this login (copy the whole address the browser ended on after "
                    + "signing in, with its code and state); still waiting")
            return nil
        } catch {
            Output.error("\(error)")
            return error.exitCode == ExitCode.daemonUnavailable ? error.exitCode : nil
        }
        if status.loginID != started.loginID {
            Output.note("That was the redirect of the login to '\(status.account)'; still waiting for '\(account)'.")
        }
        return nil
    }
}
