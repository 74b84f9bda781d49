import BrokerHTTP
import BrokerProtocol
import Synchronization
import Testing

@testable import BrokerCore

/// `--allow-exe` identifies the file, not the name (docs/security.md, "Caller policy"): a caller
/// is named by its `/proc/PID/exe` path only when the file it runs is the file at that path as the
/// daemon sees it at check time, and it shares the daemon's namespaces unless the account allows
/// others. Without I/O: the router's `ExecutableLookup` is a table here (the real reads:
/// `CallerPolicyNamespaceTests`, `ProcessAncestryTests`).
@Suite struct CallerExecutableFileTests {
    static let git = "/usr/bin/git"
    static let genuine = FileIdentity(device: 0x801, inode: 123_456)
    static let bindMounted = FileIdentity(device: 0x801, inode: 999)

    /// What the fake system says: each pid's path, running file and namespace; each path's file.
    final class System: Sendable {
        struct Process {
            var path: String
            var file: FileIdentity?
            var namespace: ExecutableFile.Namespace
        }
        let processes: Mutex<[Int32: Process]>
        let files: Mutex<[String: FileIdentity]>
        let runningReads = Mutex(0)

        init(_ processes: [Int32: Process], files: [String: FileIdentity] = [git: genuine]) {
            self.processes = Mutex(processes)
            self.files = Mutex(files)
        }

        var lookup: ExecutableLookup {
            ExecutableLookup(
                running: { pid in
                    self.runningReads.withLock { $0 += 1 }
                    let process = self.processes.withLock { $0[pid] }
                    return ExecutableFile(file: process?.file, namespace: process?.namespace ?? .unknown)
                },
                file: { path in self.files.withLock { $0[path] } })
        }

        func identity(_ pid: Int32) -> ProcessIdentity {
            ProcessIdentity(executable: processes.withLock { $0[pid]?.path } ?? "unknown", command: "git", startTime: "1")
        }
    }

    static func router(_ system: System, logs: LogCapture, policy: CallerPolicy?) -> APIRouter {
        APIRouter(
            service: FakeBrokerService(cachedAccounts: ["work"], policies: policy.map { ["work": $0] } ?? [:]),
            configuration: .init(policy: PeerPolicy(daemonUID: RouterFixture.daemonUID), startedAt: 1_000),
            logger: logs.logger, now: { 1_010 }, process: { system.identity($0) }, executables: system.lookup)
    }

    static let token = RouterFixture.request("GET", "/v1/accounts/work/token")
    static let allowGit = CallerPolicy(allowedExecutables: [git])

    /// Pid 10 runs the real git; pid 11 runs a file bind-mounted over /usr/bin/git in another
    /// namespace (`unshare -Urm`); pid 12 the same file in the daemon's namespace (a bind mount
    /// made there), pid 13 the real git in another namespace.
    static func system() -> System {
        System([
            10: .init(path: git, file: genuine, namespace: .home),
            11: .init(path: git, file: bindMounted, namespace: .other),
            12: .init(path: git, file: bindMounted, namespace: .home),
            13: .init(path: git, file: genuine, namespace: .other),
            14: .init(path: git, file: genuine, namespace: .unknown),
        ])
    }

    @Test func aFileBindMountedOverAnAllowedPathIsRefusedAndTheRealFileServed() async throws {
        let system = Self.system()
        let logs = LogCapture()
        let router = Self.router(system, logs: logs, policy: Self.allowGit)
        #expect(router.handleImmediately(Self.token, connection: RouterFixture.connection(pid: 10))?.status == 200)
        for pid: Int32 in [11, 12] {
            let refused = try #require(router.handleImmediately(Self.token, connection: RouterFixture.connection(pid: pid)))
            #expect(refused.status == 403)
            #expect(refused.wireError?.code == .callerNotAllowed)
            #expect(refused.wireError?.message.contains("cannot be determined") == true, "\(refused.wireError?.message ?? "")")
            // The actor path too (min_ttl): refused before the broker is asked.
            let slow = await router.handle(
                RouterFixture.request("GET", "/v1/accounts/work/token?min_ttl=5"), connection: RouterFixture.connection(pid: pid))
            #expect(slow.status == 403)
        }
        let message =
            router.handleImmediately(Self.token, connection: RouterFixture.connection(pid: 12))?.wireError?.message ?? ""
        #expect(
            message.contains("/usr/bin/git (not the file at this path)") && message.contains("mounted over the path"),
            "\(message)")
        // The audit line of the served one carries the file's identity: MAJOR:MINOR:INODE.
        let audits = logs.captured.filter { $0.contains("audit: token") }
        #expect(audits.count == 1 && audits[0].contains("exe=/usr/bin/git exe_id=8:1:123456 "), "\(audits)")
    }

    @Test func anotherNamespaceIsRefusedUnlessTheAccountAllowsItAndThenTheFileDecides() throws {
        let system = Self.system()
        let logs = LogCapture()
        let strict = Self.router(system, logs: logs, policy: Self.allowGit)
        let refused = try #require(strict.handleImmediately(Self.token, connection: RouterFixture.connection(pid: 13)))
        #expect(refused.status == 403)
        let message = refused.wireError?.message ?? ""
        #expect(
            message.contains("another mount or user namespace")
                && message.contains("authctl account update work --allow-other-namespaces"), "\(message)")

        let open = Self.router(
            system, logs: logs, policy: CallerPolicy(allowedExecutables: [Self.git], allowOtherNamespaces: true))
        #expect(open.handleImmediately(Self.token, connection: RouterFixture.connection(pid: 13))?.status == 200)
        #expect(open.handleImmediately(Self.token, connection: RouterFixture.connection(pid: 11))?.status == 403)
        // Namespaces that cannot be read are never allowed.
        #expect(open.handleImmediately(Self.token, connection: RouterFixture.connection(pid: 14))?.status == 403)
    }

    /// `--confirm` approves by name: a spoofed name must not ride on an approval.
    @Test func anApprovalOfTheNameIsNotAnApprovalOfAnotherFile() {
        let system = Self.system()
        let logs = LogCapture()
        let service = FakeBrokerService(
            cachedAccounts: ["work"], policies: ["work": CallerPolicy(allowedExecutables: [], confirm: true)])
        service.approvalDecisions.withLock { $0[Self.git] = true }
        let router = APIRouter(
            service: service, configuration: .init(policy: PeerPolicy(daemonUID: RouterFixture.daemonUID), startedAt: 1_000),
            logger: logs.logger, now: { 1_010 }, process: { system.identity($0) }, executables: system.lookup)
        #expect(router.handleImmediately(Self.token, connection: RouterFixture.connection(pid: 10))?.status == 200)
        #expect(router.handleImmediately(Self.token, connection: RouterFixture.connection(pid: 12))?.status == 403)
    }

    /// A package upgrade replaces /usr/bin/git (a new inode): the path is stat'ed at each check, so
    /// the new git is served at once and a connection of the old, replaced one is refused.
    @Test func theAllowedPathIsStatedAtEachCheckNotOnceAtStart() {
        let system = Self.system()
        let logs = LogCapture()
        let router = Self.router(system, logs: logs, policy: Self.allowGit)
        let old = RouterFixture.connection(pid: 10)
        #expect(router.handleImmediately(Self.token, connection: old)?.status == 200)
        let upgraded = FileIdentity(device: 0x801, inode: 777)
        system.files.withLock { $0[Self.git] = upgraded }
        system.processes.withLock { $0[20] = .init(path: Self.git, file: upgraded, namespace: .home) }
        #expect(router.handleImmediately(Self.token, connection: RouterFixture.connection(pid: 20))?.status == 200)
        #expect(router.handleImmediately(Self.token, connection: old)?.status == 403)
    }

    /// The running file is read only for an account with a policy, and once per connection.
    @Test func theRunningFileIsReadOnlyWithAPolicyAndOncePerConnection() async {
        let system = Self.system()
        let logs = LogCapture()
        let connection = RouterFixture.connection(pid: 10)
        let open = Self.router(system, logs: logs, policy: nil)
        open.connectionStarted(connection)
        for _ in 0..<3 { #expect(open.handleImmediately(Self.token, connection: connection)?.status == 200) }
        #expect(system.runningReads.withLock { $0 } == 0)
        #expect(!logs.captured.contains { $0.contains("exe_id=") })

        let guarded = Self.router(system, logs: logs, policy: Self.allowGit)
        let second = RouterFixture.connection(pid: 10)
        guarded.connectionStarted(second)
        for _ in 0..<3 { #expect(guarded.handleImmediately(Self.token, connection: second)?.status == 200) }
        #expect(
            await guarded.handle(RouterFixture.request("GET", "/v1/accounts/work/id_token"), connection: second).status == 200)
        #expect(system.runningReads.withLock { $0 } == 1)
    }

    @Test func fileIdentitiesPrintAsMajorMinorInode() {
        #expect(FileIdentity(device: 0x801, inode: 5).description == "8:1:5")
        // A large device number (minor ≥ 256, major ≥ 4096) in glibc's encoding.
        #expect(
            FileIdentity(device: (0x12345 << 44) | (0xabc << 20) | (0x678 << 8) | 0x9a, inode: 1).description
                == "\(0x1234_5678):\(0xabc9a):1")
    }
}
