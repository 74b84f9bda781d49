import BrokerHTTP

/// BrokerCore speaks of the caller in the server's terms: pid, uid and gid from SO_PEERCRED.
public typealias PeerCredentials = BrokerHTTP.PeerCredentials
