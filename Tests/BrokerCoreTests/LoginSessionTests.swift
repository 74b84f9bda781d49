import BrokerCrypto
import BrokerHTTP
import Foundation
import Glibc
import Testing

@testable import BrokerCore

/// The loopback redirect flow against a canned token endpoint (the full provider cycle is in
/// MockProviderLoginTests). The test plays the browser with the project's HTTP client.
@Suite struct LoginSessionTests {
    static let plainOAuth = ClientConfiguration(clientID: "cli", scopes: ["read"])

    static func tokenTransport() -> FakeTransport {
        let transport = FakeTransport()
        transport.on("\(testIssuer)/token", .json(["access_token": "at-1", "token_type": "Bearer", "expires_in": 60]))
        return transport
    }

    static func get(_ url: String) async throws -> HTTPResponse {
        try await HTTPClient(configuration: HTTPClientConfiguration(totalTimeout: .seconds(10), maxIdleConnectionsPerHost: 0))
            .send(HTTPClientRequest(url: url))
    }

    static func state(of session: LoginSession) -> String {
        queryFields(session.authorizationURL).first { $0.name == "state" }?.value ?? ""
    }

    @Test func callbackCompletesTheLoginAndClosesTheListener() async throws {
        let transport = Self.tokenTransport()
        let session = try await LoginSession.start(
            client: OIDCClient(transport: transport), metadata: testMetadata(), configuration: Self.plainOAuth)
        let redirect = session.redirectURI
        #expect(redirect.host == .ipv4 && redirect.path == "/callback" && redirect.port > 0)
        #expect(queryFields(session.authorizationURL).contains(FormField("redirect_uri", redirect.description)))
        #expect(session.outcome == nil)

        let stray = try await Self.get("http://127.0.0.1:\(redirect.port)/favicon.ico")
        #expect(stray.status == 404)
        let page = try await Self.get("\(redirect)?code=c-1&state=\(Self.state(of: session))")
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("Signed in"))

        let result = try await session.result().get()
        #expect(result.tokens.accessToken == Secret("at-1") && result.subject == nil)
        let exchange = try #require(transport.requests.last)
        #expect(formFields(exchange.body)["code"] == "c-1")
        #expect(formFields(exchange.body)["redirect_uri"] == redirect.description)
        await #expect(throws: HTTPClientError.self) { try await Self.get(redirect.description) }
    }

    /// Without `--redirect-port` the kernel picks the port: logins at the same time each get their
    /// own, from the ephemeral range, so another local program cannot know it in advance.
    @Test func withoutAFixedPortEachLoginListensOnItsOwnEphemeralPort() async throws {
        var sessions: [LoginSession] = []
        for _ in 0..<3 {
            sessions.append(
                try await LoginSession.start(
                    client: OIDCClient(transport: Self.tokenTransport()), metadata: testMetadata(), configuration: Self.plainOAuth
                ))
        }
        defer { for session in sessions { session.cancel() } }
        let ports = sessions.map(\.redirectURI.port)
        #expect(Set(ports).count == 3, "\(ports)")
        let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(range.count == 2)
        #expect(ports.allSatisfy { (range[0]...range[1]).contains(Int($0)) }, "\(ports) outside \(range)")
    }

    /// Another local user fills the listener with silent connections and sends junk: the
    /// browser is still served (an idle connection gives way) and the login is not consumed.
    @Test func idleAndJunkConnectionsDoNotHoldTheLoginHostage() async throws {
        let session = try await LoginSession.start(
            client: OIDCClient(transport: Self.tokenTransport()), metadata: testMetadata(), configuration: Self.plainOAuth)
        let port = session.redirectURI.port
        let idle = try (0..<LoginSession.listenerConfiguration.maxConnections).map { _ in try Self.connect(port: port) }
        defer { idle.forEach { close($0) } }
        for junk in ["\u{0}\u{1} junk\r\n\r\n", "GET /callback?code=x HTTP/1.1\r\nno colon here\r\n\r\n"] {
            let fd = try Self.connect(port: port)
            defer { close(fd) }
            _ = junk.utf8CString.withUnsafeBytes { send(fd, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
            var reply = [UInt8](repeating: 0, count: 64)
            #expect(
                String(decoding: reply[0..<max(0, recv(fd, &reply, reply.count, 0))], as: UTF8.self).hasPrefix("HTTP/1.1 400"))
        }
        #expect(session.outcome == nil)
        let page = try await Self.get("\(session.redirectURI)?code=c-1&state=\(Self.state(of: session))")
        #expect(page.status == 200)
        #expect(try await session.result().get().tokens.accessToken == Secret("at-1"))
    }

    /// A plain TCP connection to 127.0.0.1:`port` that sends nothing (5 s receive timeout).
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard result == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        return fd
    }

    enum Ending: CaseIterable { case wrongState, timeout, cancel }

    /// Backs docs/security.md "Loopback redirect listener": "closed when it ends (success,
    /// failure, timeout, logout)". Success is checked above; here a failed callback, the
    /// deadline, and a cancel (what logout does): afterwards the port refuses connections.
    @Test(arguments: Ending.allCases)
    func theListenerIsClosedWhenTheLoginFailsTimesOutOrIsCancelled(_ ending: Ending) async throws {
        let session = try await LoginSession.start(
            client: OIDCClient(transport: Self.tokenTransport()), metadata: testMetadata(), configuration: Self.plainOAuth,
            timeout: ending == .timeout ? .milliseconds(300) : .seconds(60))
        let port = session.redirectURI.port
        close(try Self.connect(port: port))
        switch ending {
        case .wrongState: _ = try await Self.get("\(session.redirectURI)?code=c-1&state=not-the-state")
        case .cancel: session.cancel()
        case .timeout: break
        }
        guard case .failure = await session.result() else {
            Issue.record("the login should have failed (\(ending))")
            return
        }
        #expect(throws: POSIXError.self) { close(try Self.connect(port: port)) }
    }

    @Test func cancelEndsTheLoginAndPastedURLIsChecked() async throws {
        let session = try await LoginSession.start(
            client: OIDCClient(transport: Self.tokenTransport()), metadata: testMetadata(), configuration: Self.plainOAuth,
            redirect: LoopbackRedirect(host: .localhost, path: "/cb"))
        #expect(session.redirectURI.description.hasPrefix("http://localhost:"))
        let wrong = await session.completeWithPastedURL("http://127.0.0.1:1/cb?code=x&state=y")
        guard case .failure(.malformedCallback) = wrong else {
            Issue.record("unexpected \(wrong)")
            return
        }
        #expect(session.outcome == nil)
        session.cancel()
        #expect(await session.result() == .failure(.cancelled))
        let late = await session.completeWithPastedURL("\(session.redirectURI)?code=x&state=\(Self.state(of: session))")
        #expect(late == .failure(.cancelled))
    }

    @Test func pastedURLCompletesTheLogin() async throws {
        let session = try await LoginSession.start(
            client: OIDCClient(transport: Self.tokenTransport()), metadata: testMetadata(), configuration: Self.plainOAuth)
        let result = await session.completeWithPastedURL(" \(session.redirectURI)?code=c&state=\(Self.state(of: session))\n")
        #expect(try result.get().tokens.accessToken == Secret("at-1"))
        #expect(await session.result() == result)
    }

    @Test func invalidRedirectSettingsAreRefusedBeforeBinding() async throws {
        let client = OIDCClient(transport: FakeTransport())
        for redirect in [LoopbackRedirect(port: 70_000), LoopbackRedirect(path: "callback"), LoopbackRedirect(path: "/a b")] {
            await #expect(throws: OIDCError.self) {
                try await LoginSession.start(
                    client: client, metadata: testMetadata(), configuration: Self.plainOAuth, redirect: redirect)
            }
        }
    }
}
