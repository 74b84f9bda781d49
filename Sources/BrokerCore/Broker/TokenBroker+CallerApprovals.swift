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
        ) {
            notifier.approvalNeeded(account: account, executable: executable, pid: pid)
        }
        logger.with(account).info("caller approval: \(outcome)", ["exe": executable, "pid": String(pid)])
        return outcome
    }

    public nonisolated func pendingApprovals(owner: UInt32) -> ApprovalList {
        ApprovalList(approvals: approvals.pending(owner: owner))
    }

    /// Decides for the named executable, or for the one waiting when none is named.
    public func decideApproval(_ decision: ApprovalDecision, owner: UInt32) async throws(WireError) -> ApprovalResult {
        let key = AccountKey(owner: owner, name: decision.account)
        guard accounts[key] != nil else { throw unknownAccount(key) }
        let executable = try chosenExecutable(decision, account: key)
        let released = approvals.decide(CallerApprovals.Key(account: key, executable: executable), approve: !decision.deny)
        let verb = decision.deny ? "denied" : "approved"
        logger.with(key).info("caller \(verb) until the daemon restarts", ["exe": executable, "released": String(released)])
        return ApprovalResult(account: key.name, executable: executable, decision: verb, released: released)
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
            let message = waiting.isEmpty
                ? "Nothing waits for approval for '\(key.name)'; name the program: authctl approve \(key.name) --exe PATH"
                : "Several programs wait for '\(key.name)' (\(waiting.joined(separator: ", "))); choose one with --exe PATH."
            throw fail(WireError(code: .invalidRequest, message: message))
        }
        return only
    }
}
