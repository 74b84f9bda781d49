import BrokerProtocol

// `--confirm`: approvals of caller executables, per account and daemon boot (`CallerApprovals`).
extension TokenBroker {
    public nonisolated func callerApproval(account: AccountKey, executable: String) -> Bool? {
        approvals.decision(CallerApprovals.Key(account: account, executable: executable))
    }

    public nonisolated func awaitCallerApproval(account: AccountKey, executable: String, pid: Int32) async
        -> ApprovalOutcome
    {
        let key = CallerApprovals.Key(account: account, executable: executable)
        let notifier = notifier
        let outcome = await approvals.wait(
            key, pid: pid, timeout: .milliseconds(Int64(options.approvalTimeout * 1000)), sleep: sleep
        ) { code in
            notifier.approvalNeeded(account: account, executable: executable, pid: pid, code: code)
        }
        logger.with(account).info("caller approval: \(outcome)", ["exe": executable, "pid": String(pid)])
        return outcome
    }

    public nonisolated func pendingApprovals(owner: UInt32) -> ApprovalList {
        ApprovalList(approvals: approvals.pending(owner: owner))
    }

    /// Decides for the named executable, or for the one waiting when none is named. Approving needs
    /// the code the wait's notification showed (`CallerApprovals.approve`); denying does not.
    /// `caller`: who asked, for the log line.
    public func decideApproval(_ decision: ApprovalDecision, owner: UInt32, caller: ChangeRequester) async throws(WireError)
        -> ApprovalResult
    {
        let key = AccountKey(owner: owner, name: decision.account)
        guard accounts[key] != nil else { throw unknownAccount(key) }
        let executable = try chosenExecutable(decision, account: key)
        let pair = CallerApprovals.Key(account: key, executable: executable)
        let who: KeyValuePairs<String, String> = ["exe": executable, "by_pid": caller.pid, "by_exe": caller.executable]
        let released: Int
        if decision.deny {
            released = approvals.decide(pair, approve: false)
        } else {
            released = try checkedApproval(pair, code: decision.code, log: logger.with(key).with(who))
        }
        let verb = decision.deny ? "denied" : "approved"
        logger.with(key).info("caller \(verb) until the daemon restarts", who)
        return ApprovalResult(account: key.name, executable: executable, decision: verb, released: released)
    }

    /// Approves `pair` with `code`, or throws the refusal (never naming the code).
    private func checkedApproval(_ pair: CallerApprovals.Key, code: String?, log: Logger) throws(WireError) -> Int {
        let (name, program) = (pair.account.name, ShownText.escaped(pair.executable))
        let wait = "the notification that asked to approve \(program) (the notify hook's AUTHBROKER_APPROVAL_CODE)"
        guard let code else {
            throw fail(
                WireError(
                    code: .confirmationRequired,
                    message: "Approving needs the one-time code shown in \(wait): authctl approve \(name) --code CODE"))
        }
        switch approvals.approve(pair, code: code) {
        case .approved(let released):
            return released
        case .notWaiting:
            throw fail(
                WireError(
                    code: .confirmationFailed,
                    message: "\(program) does not wait for '\(name)', so no code was shown for it: approve it while it waits "
                        + "(run it, then authctl approve \(name) --code CODE from its notification)."))
        case .wrong(let remaining):
            log.warning("caller approval: wrong code (\(remaining) tries left)")
            throw fail(
                WireError(
                    code: .confirmationFailed,
                    message: "That is not the code shown in \(wait); \(remaining) tries left."))
        case .burnt(let released):
            log.warning("caller approval: too many wrong codes; the wait ended (\(released) requests refused)")
            throw fail(
                WireError(
                    code: .confirmationFailed,
                    message: "Too many wrong codes: the wait of \(program) for '\(name)' ended. When it asks again, "
                        + "approve it with the code of the new notification."))
        }
    }

    private func chosenExecutable(_ decision: ApprovalDecision, account key: AccountKey) throws(WireError) -> String {
        if let executable = decision.executable {
            if let problem = CallerExecutable.problem(with: [executable]) {
                throw fail(WireError(code: .invalidRequest, message: "--exe: \(problem)."))
            }
            return executable
        }
        let waiting = approvals.waitingExecutables(key)
        guard waiting.count == 1, let only = waiting.first else {
            let message =
                waiting.isEmpty
                ? "Nothing waits for approval for '\(key.name)'; name the program: authctl approve \(key.name) --exe PATH"
                : "Several programs wait for '\(key.name)' (\(waiting.map(ShownText.escaped).joined(separator: ", "))); "
                    + "choose one with --exe PATH."
            throw fail(WireError(code: .invalidRequest, message: message))
        }
        return only
    }
}
