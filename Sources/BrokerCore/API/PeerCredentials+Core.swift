import BrokerHTTP

/// BrokerCore speaks of the caller in the server's terms: pid, uid and gid from SO_PEERCRED.
public typealias PeerCredentials = BrokerHTTP.PeerCredentials

extension PeerCredentials {
    /// The caller's own account `name`: the only kind of account key a socket route can build, so
    /// no route can reach another owner's account.
    func account(_ name: String) -> AccountKey { AccountKey(owner: uid, name: name) }
}
