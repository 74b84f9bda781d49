import BrokerProtocol
@preconcurrency import Glibc

/// `authctl login`'s wait: long-polls the daemon until the login ends and, between polls (at
/// most a second apart), watches the browser it started and reads what the user pastes. One
/// thread, no blocking read: `PastedLines` polls stdin, `BrowserLaunch` reaps with WNOHANG.
struct LoginWait {
    /// One sentence for a failed login: the daemon's own when it names the account already
    /// ("The login for 'work' failed: …"), else the reason after that phrase — never both.
    static func failure(of account: String, _ error: WireError?) -> String {
        guard let message = error?.message, !message.isEmpty else {
            return "The login for '\(account)' failed (no reason given)."
        }
        return message.contains("'\(account)'") ? message : "The login for '\(account)' failed: \(message)"
    }

    let started: LoginStarted
    let account: String
    let context: CommandContext
    /// When the login gives up (the requested timeout; a device code may expire sooner).
    let deadline: ContinuousClock.Instant
    var browser: BrowserLaunch?
    var pasted: PastedLines

    init(
        started: LoginStarted, account: String, context: CommandContext, deadline: ContinuousClock.Instant,
        browser: BrowserLaunch?, acceptsPaste: Bool
    ) {
        self.started = started
        self.account = account
        self.context = context
        self.deadline = deadline
        self.browser = browser
        pasted = PastedLines()
        if !acceptsPaste { pasted.close() }
    }

    mutating func run() -> Int32 {
        // The spinner redraws its line and would write over what the user is pasting.
        let mode: Spinner.Mode = !Output.stderrIsTerminal ? .silent : pasted.isOpen ? .everyMinute : .inPlace
        var spinner = Spinner(mode: mode, message: "Waiting for the login to complete", deadline: deadline)
        defer { spinner.finish() }
        if pasted.isOpen && pasted.isForeground {
            Output.note(
                "Waiting for the login to complete (\(Spinner.left(Spinner.secondsLeft(until: deadline))); Ctrl-C to stop), "
                    + "or paste the address your browser ended on and press Enter.")
        }
        LoginInterrupt.arm()
        defer { LoginInterrupt.disarm() }
        // A connection reset or closed without an answer is looked at again (a few times, 0.3 s
        // apart: a killed daemon's socket resets connections until it is gone): the daemon may have died.
        var connectionsLost = 0
        while true {
            if LoginInterrupt.hasFired {
                spinner.finish()
                return cancel()
            }
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
                if LoginInterrupt.hasFired { continue }  // a poll cut short by Ctrl-C
                if case .protocolError = error, connectionsLost < 3 {
                    connectionsLost += 1
                    usleep(300_000)
                    continue
                }
                spinner.finish()
                return reportFailedPoll(error)
            }
            connectionsLost = 0
            switch status.outcome {
            case .pending:
                spinner.tick()
            case .succeeded:
                spinner.finish()
                Output.note("Signed in to '\(account)'" + (status.subject.map { " as \($0)" } ?? "") + ".")
                return ExitCode.success
            case .failed:
                spinner.finish()
                Output.error(Self.failure(of: account, status.error))
                return ExitCode.failure
            case .timedOut:
                spinner.finish()
                Output.error("login to '\(account)' timed out. Run again: authctl login \(account)")
                return ExitCode.temporaryFailure
            }
        }
    }

    /// Ctrl-C: ends the pending login through the daemon, so none is left waiting; exit 130 (the
    /// shell's code for a command stopped by SIGINT).
    func cancel() -> Int32 {
        do {
            _ = try context.client.call(.cancelLogin(account: account), timeout: 10)
            Output.error("login to '\(account)' cancelled.")
        } catch .api(let error) where error.code == .conflict {
            Output.error("login to '\(account)' stopped; it had already ended.")
        } catch {
            Output.error("stopped waiting, but could not cancel the login (\(error)); it ends by itself at its timeout.")
        }
        return ExitCode.interrupted
    }

    /// A status poll that failed: a daemon that stopped (not running now, or restarted by socket
    /// activation and so without this login) gets the next step and exit 69, not a bare error.
    /// (A login this command started and still polls is unknown only to a daemon that restarted.)
    func reportFailedPoll(_ error: BrokerClientError) -> Int32 {
        switch error {
        case .daemonNotRunning:
            break
        case .api(let wire) where wire.code == .unknownAccount:
            break
        default:
            Output.error("\(error)")
            return error.exitCode
        }
        Output.error(
            "the daemon stopped during the login. \(BrokerClientError.startHint(context.socketPath)) Then run: authctl login \(account)"
        )
        return ExitCode.daemonUnavailable
    }

    /// One line: what failed (never the URL) and what to do instead; the login keeps waiting.
    func advice(after failure: String) -> String {
        let handOver =
            pasted.isOpen
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
