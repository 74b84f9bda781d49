import BrokerCore
import BrokerCrypto
import BrokerHTTP
import Foundation
import Glibc
import Testing

/// A `localhost` redirect URI binds 127.0.0.1 and [::1] on one port (issue: binding only
/// 127.0.0.1 let another user take [::1]:PORT and receive the code from an IPv6-first browser).
@Suite struct LoginSessionLocalhostTests {
    @Test func aLocalhostLoginListensOnBothFamiliesAndNobodyCanTakeThePort() async throws {
        let session = try await LoginSession.start(
            client: OIDCClient(transport: LoginSessionTests.tokenTransport()), metadata: testMetadata(),
            configuration: LoginSessionTests.plainOAuth, redirect: LoopbackRedirect(host: .localhost))
        let port = session.redirectURI.port
        #expect(session.redirectURI.description == "http://localhost:\(port)/callback")
        #expect(try await LoginSessionTests.get("http://127.0.0.1:\(port)/favicon.ico").status == 404)
        #expect(try await LoginSessionTests.get("http://[::1]:\(port)/favicon.ico").status == 404)
        // What another local user would try, with every reuse option a non-owner can set.
        #expect(Self.bindProbe(ipv6: true, port: port) == EADDRINUSE)
        #expect(Self.bindProbe(ipv6: false, port: port) == EADDRINUSE)

        let page = try await LoginSessionTests.get(
            "http://[::1]:\(port)/callback?code=c-1&state=\(LoginSessionTests.state(of: session))")
        #expect(page.status == 200)
        #expect(try await session.result().get().tokens.accessToken == Secret("at-1"))
        // Both listeners are gone with the login (they stop in a task of their own a moment after the
        // outcome is published, as docs/security.md says: wait for that, within a bound).
        #expect(await Self.bindProbeSucceeds(ipv6: true, port: port))
        #expect(await Self.bindProbeSucceeds(ipv6: false, port: port))
    }

    /// True once a probe can bind `port` (within 5 s).
    static func bindProbeSucceeds(ipv6: Bool, port: Int) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while bindProbe(ipv6: ipv6, port: port) != 0 {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    @Test func aFixedPortTakenOnIPv6IsRefusedAndLeavesIPv4Free() async throws {
        let squatter = try HTTPListener.tcp(host: "::1", port: 0)
        let port = try #require(squatter.port)
        let error = await #expect(throws: OIDCError.self) {
            try await LoginSession.start(
                client: OIDCClient(transport: LoginSessionTests.tokenTransport()), metadata: testMetadata(),
                configuration: LoginSessionTests.plainOAuth, redirect: LoopbackRedirect(host: .localhost, port: port))
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("127.0.0.1:\(port) and [::1]:\(port)"), "\(text)")
        #expect(text.contains("choose another redirect port"), "\(text)")
        #expect(Self.bindProbe(ipv6: false, port: port) == 0)
        withExtendedLifetime(squatter) {}
    }

    @Test func ephemeralLocalhostListenersShareAFreshPortEachTime() throws {
        var ports: Set<Int> = []
        for _ in 0..<8 {
            let listeners = try HTTPListener.localhost()
            #expect(listeners.count == 2)
            #expect(Set(listeners.compactMap(\.port)).count == 1)
            #expect(listeners.map(\.address).contains(.tcp(host: "::1", port: listeners[0].port ?? 0)))
            ports.formUnion(listeners.compactMap(\.port))
        }
        #expect(ports.count > 1)
    }

    /// Binds (and immediately closes) a socket on loopback `port` with SO_REUSEADDR and
    /// SO_REUSEPORT; 0 when it could, else errno.
    static func bindProbe(ipv6: Bool, port: Int) -> Int32 {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
        let result: Int32
        if ipv6 {
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            address.sin6_addr = in6addr_loopback
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        return result == 0 ? 0 : errno
    }
}
