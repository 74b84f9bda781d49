import BrokerHTTP
import BrokerProtocol

/// What the caller policy says about one token request.
enum CallerAdmission {
    /// Served; the identity that was checked (nil: the account has no policy, nothing was read).
    case serve(ProcessIdentity?)
    case refuse(WireError)
    /// A `--confirm` account and a program not decided on this boot: wait for `authctl approve`.
    case askApproval(ProcessIdentity)
}

extension APIRouter {
    /// The account's caller policy, checked before any token or ID token is looked up (so a refused
    /// caller never triggers a refresh). The identity checked is the one the audit line records,
    /// with the identity of the file it runs (`exe_id`).
    func callerCheck(_ account: AccountKey, peer: PeerCredentials) -> CallerAdmission {
        guard let policy = service.callerPolicy(account: account) else { return .serve(nil) }
        var identity = process(peer.pid)
        // Named by its path only when that path, as the daemon sees it now, is the file it runs
        // (and it shares the daemon's namespaces, unless the account allows others): a fresh stat
        // per check, so a package upgrade's new file is the one compared (docs/security.md).
        let file = running(peer.pid)
        identity.executableID = file.file
        let determined = CallerExecutable.determined(
            identity.executable, running: file, allowOtherNamespaces: policy.allowOtherNamespaces, fileAt: executables.file)
        let executable = CallerExecutable.policyName(of: determined)
        if policy.looksPastAdapter(executable, adapter: configuration.adapter) {
            identity.via = policy.speaker(among: executables.ancestors(peer.pid))
        }
        let approval = policy.confirm ? service.callerApproval(account: account, executable: executable) : nil
        switch policy.verdict(executable: executable, via: identity.via, account: account.name, approval: approval) {
        case .serve:
            return .serve(identity)
        case .askApproval:
            return .askApproval(identity)
        case .refuse(let refusal):
            logCallerRefusal(account, peer: peer, executable: executable, via: identity.via)
            return .refuse(refusal)
        }
    }

    /// `callerCheck` for the actor path: waits (bounded) for a decision when one is needed.
    func admittedCaller(_ account: AccountKey, peer: PeerCredentials) async throws(WireError) -> ProcessIdentity? {
        switch callerCheck(account, peer: peer) {
        case .serve(let identity):
            return identity
        case .refuse(let refusal):
            throw refusal
        case .askApproval(let identity):
            let executable = CallerExecutable.policyName(of: identity.executable)
            switch await service.awaitCallerApproval(account: account, executable: executable, pid: peer.pid) {
            case .approved: return identity
            case .denied: throw CallerPolicy.denied(executable, account: account.name)
            case let outcome: throw CallerPolicy.unapproved(outcome, executable: executable, account: account.name)
            }
        }
    }

    /// `GET /v1/approvals` and `POST /v1/approvals` (main socket only: `RestrictedRouteFilter`).
    func answerApprovals(_ operation: APIOperation, request: HTTPRequest, peer: PeerCredentials)
        async throws(WireError) -> HTTPResponse
    {
        if operation == .listApprovals {
            return try Self.json(.listApprovals, service.pendingApprovals(owner: peer.uid))
        }
        let body = try RouterBody.required(.decideApproval, from: request)
        if let problem = AccountName.problem(with: body.account) {
            throw WireError(code: .invalidRequest, message: "Invalid account name: \(problem).")
        }
        return try Self.json(.decideApproval, await service.decideApproval(body, owner: peer.uid, caller: requester(peer)))
    }

    /// Who asks for a decision or a change: the connection's pid and the executable read for it.
    func requester(_ peer: PeerCredentials) -> ChangeRequester {
        ChangeRequester(pid: peer.pid, executable: process(peer.pid).executable)
    }

    // Throttled like peer refusals: a looping script must not flood the journal.
    private func logCallerRefusal(_ account: AccountKey, peer: PeerCredentials, executable: String, via: String?) {
        guard refusals.shouldLog(uid: peer.uid, now: now()) else { return }
        logger.with(via.map { ["via": $0] } ?? [:]).warning(
            "refused a token: caller policy (logged once a minute per uid)",
            ["account": account.name, "pid": String(peer.pid), "exe": executable, "owner": String(account.owner)])
    }
}
