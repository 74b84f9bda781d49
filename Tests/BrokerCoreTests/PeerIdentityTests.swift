import BrokerHTTP
import BrokerProtocol
import Synchronization
import Testing

@testable import BrokerCore

/// A connection's peer is looked up in /proc once, when it is admitted (`PeerIdentity`), and every
/// request on it — caller policy and audit line — sees that identity.
@Suite struct PeerIdentityTests {
    /// A router whose /proc lookup counts its calls and names a new program each time.
    final class CountingLookup: Sendable {
        let calls = Mutex<[Int32]>([])

        func identity(_ pid: Int32) -> ProcessIdentity {
            let call = calls.withLock { calls in
                calls.append(pid)
                return calls.count
            }
            return ProcessIdentity(executable: "/usr/bin/prog-\(call)", command: "prog", startTime: "\(pid)")
        }
    }

    static func router(_ lookup: CountingLookup, logs: LogCapture, policies: [String: CallerPolicy] = [:]) -> APIRouter {
        APIRouter(
            service: FakeBrokerService(cachedAccounts: ["work"], policies: policies),
            configuration: .init(policy: PeerPolicy(daemonUID: RouterFixture.daemonUID), startedAt: 1_000),
            logger: logs.logger, now: { 1_010 }, process: { lookup.identity($0) },
            executables: .everyPathNamesTheRunningFile)
    }

    static let token = HTTPRequest(
        method: "GET", target: "/v1/accounts/work/token", headers: HTTPHeaders([("Accept", "text/plain")]))

    @Test func theLookupRunsOnceAtAdmissionAndEveryRequestOnTheConnectionSeesIt() async throws {
        let lookup = CountingLookup()
        let logs = LogCapture()
        let router = Self.router(lookup, logs: logs)
        let connection = RouterFixture.connection(pid: 41)
        router.connectionStarted(connection)
        #expect(lookup.calls.withLock { $0 } == [41])
        #expect(router.handleImmediately(Self.token, connection: connection)?.status == 200)
        #expect(
            await router.handle(HTTPRequest(method: "GET", target: "/v1/accounts/work/token?min_ttl=5"), connection: connection)
                .status == 200)
        #expect(router.handleImmediately(Self.token, connection: connection)?.status == 200)
        let audits = logs.captured.filter { $0.contains("audit: token") }
        #expect(
            audits.count == 3 && audits.allSatisfy { $0.contains("pid=41 ") && $0.contains("exe=/usr/bin/prog-1 ") }, "\(audits)")

        // Another connection of the same pid is looked up again: the record is per connection.
        _ = router.handleImmediately(Self.token, connection: RouterFixture.connection(pid: 41))
        #expect(lookup.calls.withLock { $0 } == [41, 41])
    }

    @Test func theCallerPolicyJudgesTheProgramThatConnected() async throws {
        let lookup = CountingLookup()
        let logs = LogCapture()
        let router = Self.router(lookup, logs: logs, policies: ["work": CallerPolicy(allowedExecutables: ["/usr/bin/prog-1"])])
        let connection = RouterFixture.connection(pid: 42)
        router.connectionStarted(connection)
        // Later lookups would name prog-2, prog-3…: none happens, the connection stays prog-1's.
        for _ in 0..<3 { #expect(router.handleImmediately(Self.token, connection: connection)?.status == 200) }
        let other = RouterFixture.connection(pid: 42)
        #expect(router.handleImmediately(Self.token, connection: other)?.status == 403)
        #expect(lookup.calls.withLock { $0 } == [42, 42])
    }

    /// The DPoP proof's fast path too: without it each proof read /proc again, and a program that
    /// exec'd another on its connection was judged and audited as the new one.
    @Test func theProofFastPathJudgesAndAuditsTheProgramThatConnected() throws {
        let lookup = CountingLookup()
        let logs = LogCapture()
        let router = Self.router(lookup, logs: logs, policies: ["work": CallerPolicy(allowedExecutables: ["/usr/bin/prog-1"])])
        let connection = RouterFixture.connection(pid: 44)
        router.connectionStarted(connection)
        let proof = RouterFixture.request("POST", APIRouterDPoPTests.path, body: APIRouterDPoPTests.body(nonce: "n-1"))
        for _ in 0..<3 { #expect(try #require(router.handleImmediately(proof, connection: connection)).status == 200) }
        #expect(lookup.calls.withLock { $0 } == [44])
        let audits = logs.captured.filter { $0.contains("audit: dpop_proof") }
        #expect(audits.count == 3 && audits.allSatisfy { $0.contains("exe=/usr/bin/prog-1 ") }, "\(audits)")
    }

    @Test func aRefusedPeerIsNotLookedUp() {
        let lookup = CountingLookup()
        let logs = LogCapture()
        Self.router(lookup, logs: logs).connectionStarted(RouterFixture.connection(uid: 1001, pid: 43))
        #expect(lookup.calls.withLock { $0 }.isEmpty)
    }

    @Test func theMemoAnswersOnlyForThePidItWasReadFor() {
        let memo = ConnectionMemo()
        let first = ConnectionInfo(id: 1, peer: .unix(PeerCredentials(pid: 5, uid: 1, gid: 1)), memo: memo)
        let one = PeerIdentity.of(5, on: first) { _ in ProcessIdentity(executable: "/a", command: "a", startTime: "1") }
        let again = PeerIdentity.of(5, on: first) { _ in ProcessIdentity(executable: "/b", command: "b", startTime: "2") }
        let other = PeerIdentity.of(6, on: first) { _ in ProcessIdentity(executable: "/c", command: "c", startTime: "3") }
        #expect([one.executable, again.executable, other.executable] == ["/a", "/a", "/c"])
    }
}
