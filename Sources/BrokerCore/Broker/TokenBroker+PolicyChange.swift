import BrokerProtocol

// Caller-policy changes: any program of the owner can call `PUT /v1/accounts/{name}`, so one
// refused by `--allow-exe` (or waiting under `--confirm`) could otherwise loosen the policy, take
// the token and put the policy back. A widening change needs the one-time code that only the
// notification shows (docs/security.md, "Caller policy").
extension TokenBroker {
    /// Lets the change of `key`'s policy to `proposal` go on, or throws: without `confirmation` a
    /// fresh code goes out through the notify hook (`policy_change`) and the answer is
    /// `confirmation_required`; a wrong one uses up a try. The code itself is never in an answer or the log.
    func confirmPolicyChange(
        _ key: AccountKey, to proposal: CallerPolicy?, changed: [String], confirmation: String?, caller: ChangeRequester
    ) throws(WireError) {
        let policyKeys = changed.filter { AccountConfiguration.callerPolicyKeys.contains($0) }
        let log = logger.with(key).with([
            "changed": policyKeys.joined(separator: ","), "pid": caller.pid, "exe": caller.executable,
        ])
        let shownIn = "the notification (the notify hook's AUTHBROKER_APPROVAL_CODE)"
        guard let confirmation else {
            let code = policyConfirmations.issue(key, proposal: proposal)
            notifier.policyChange(account: key, to: proposal, changed: policyKeys, caller: caller, code: code)
            throw fail(
                WireError(
                    code: .confirmationRequired,
                    message: "'\(key.name)' has a caller policy: loosening it needs the one-time code just shown in \(shownIn). "
                        + "Run the same change again with --code CODE (on a terminal authctl asks for it)."))
        }
        let refusal: String
        switch policyConfirmations.check(key, proposal: proposal, code: confirmation) {
        case .accepted:
            return
        case .notIssued:
            refusal =
                "No code is pending for changing the caller policy of '\(key.name)' (used, burnt, or never sent). "
                + "Run the change without --code to get one."
        case .otherChange:
            refusal =
                "The code pending for '\(key.name)' was sent for another caller-policy change. "
                + "Run this change without --code to get a code for it."
        case .wrong(let remaining):
            refusal = "That is not the code shown in \(shownIn); \(remaining) tries left."
        case .burnt:
            refusal = "Too many wrong codes: the code is burnt. Run the change without --code to get a new one."
        }
        log.warning("caller policy change refused: wrong or stale code")
        throw fail(WireError(code: .confirmationFailed, message: refusal))
    }

    /// `account updated changed=KEYS tokens=… pid=… exe=…`, and `account policy changed` first when
    /// the caller policy is among the keys: names only, never values (a secret may be one of them).
    func logChange(_ key: AccountKey, changed: [String], caller: ChangeRequester, tokens: String) {
        let who: KeyValuePairs<String, String> = ["pid": caller.pid, "exe": caller.executable]
        let policyKeys = changed.filter { AccountConfiguration.callerPolicyKeys.contains($0) }
        if !policyKeys.isEmpty {
            logger.with(key).with(["changed": policyKeys.joined(separator: ",")]).info("account policy changed", who)
        }
        logger.with(key).with(["changed": changed.joined(separator: ","), "tokens": tokens]).info("account updated", who)
    }
}
