import Glibc
import WireFormats

extension HTTPServer {
    /// Who connected: TCP address or SO_PEERCRED credentials.
    func peer(of fd: Int32, address: sockaddr_storage) -> ConnectionInfo.Peer {
        let family = Int32(address.ss_family)
        if family == AF_INET || family == AF_INET6 {
            Socket.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            let (text, port) = HTTPListener.peerAddress(address)
            return .tcp(address: text, port: port)
        }
        return .unix(Socket.peerCredentials(fd))
    }

    /// Refuses the peer at once if the handler says so, else registers and starts the
    /// connection — evicting a waiting one when at a cap — or answers 503 when nothing can go.
    func admit(_ fd: Int32, peer: ConnectionInfo.Peer, handler: any HTTPHandler, source: ServedListener?) {
        if let refusal = handler.refusal(for: ConnectionInfo(id: 0, peer: peer)) {
            return reject(fd, with: refusal)
        }
        var shareUID: UInt32?
        if case .unix(let credentials) = peer, credentials.uid != configuration.ownerUID { shareUID = credentials.uid }
        let state = ConnectionState(fd: fd, shareUID: shareUID, source: source)
        let id: UInt64? = registry.withLock { registry in
            guard makeRoom(for: state, in: &registry) else { return nil }
            let id = registry.nextID
            registry.nextID += 1
            registry.connections[id] = state
            return id
        }
        guard let id else {
            return reject(fd, with: .plainText(status: 503, "too many connections; try again later"))
        }
        running.enter()
        source?.connections.enter()
        let connection = HTTPConnection(server: self, handler: handler, state: state, info: ConnectionInfo(id: id, peer: peer))
        threads.run {
            connection.run()
            source?.connections.leave()
            self.running.leave()
        }
    }

    /// Frees a slot for `state` if its uid is at its share or the server at its cap, by evicting
    /// the oldest waiting connection (of that uid for the share). False when none can go.
    private func makeRoom(for state: ConnectionState, in registry: inout Registry) -> Bool {
        if let uid = state.shareUID {
            let held = registry.connections.values.count { $0.shareUID == uid }
            if held >= configuration.maxConnectionsPerUID, !evictOne(from: &registry, where: { $0.shareUID == uid }) {
                return false
            }
        }
        if registry.connections.count >= configuration.maxConnections, !evictOne(from: &registry, where: { _ in true }) {
            return false
        }
        return true
    }

    /// Evicts the oldest idle connection matching `filter`, else the oldest half-received one:
    /// an idle keep-alive connection costs its client only a reconnect. Under the registry lock,
    /// so the descriptor shut down here cannot have been closed and reused (see `finish`).
    private func evictOne(from registry: inout Registry, where filter: (ConnectionState) -> Bool) -> Bool {
        let candidates = registry.connections.filter { filter($0.value) }.sorted { $0.key < $1.key }
        for phase in [ConnectionState.Phase.idle, .receiving] {
            for (id, connection) in candidates where connection.move(from: phase, to: .evicted) {
                registry.connections.removeValue(forKey: id)
                _ = Glibc.shutdown(connection.fd, Int32(SHUT_RDWR))
                return true
            }
        }
        return false
    }

    /// A best-effort answer without blocking the accept thread, then a bounded lingering close
    /// off this thread (`LingeringCloser`), so the peer reads the answer rather than a reset.
    private func reject(_ fd: Int32, with response: HTTPResponse) {
        if let bytes = try? response.serialized(keepAlive: false) { Socket.sendWithoutBlocking(fd, bytes) }
        LingeringCloser.shared.close(fd)
    }
}
