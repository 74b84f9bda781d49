import BrokerProtocol

extension NotifyHook {
    /// A resource server asked for scopes the account's token lacks: the hook runs with
    /// AUTHBROKER_EVENT `step_up_required`, AUTHBROKER_ACCOUNT, AUTHBROKER_OWNER_UID and
    /// AUTHBROKER_SCOPE (what the next login asks for). The account keeps its tokens; nothing logs in by itself.
    func stepUpNeeded(account key: AccountKey, scope: String) {
        let log = logger.with(key)
        log.warning(
            "step-up required: a resource server asked for more scopes (\(scope)). Log in with: authctl login \(key.name)")
        run(
            "step_up_required", account: key,
            ["AUTHBROKER_SCOPE": scope, "AUTHBROKER_REASON": "a resource server needs the scopes: \(scope)"],
            title: "authbroker: \(key.name) needs a login with more scopes",
            body: "A resource server needs more scopes (\(scope)).\nRun: authctl login \(key.name)", log: log)
    }
}
