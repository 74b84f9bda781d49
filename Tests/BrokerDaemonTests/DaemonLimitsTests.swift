import Foundation
import TestSupport
import Testing

@testable import BrokerDaemon

/// docs/security.md "Restricted sockets" and "Hardening of the units": the daemon's descriptors are
/// bounded by its caps, and the soft open-files limit is raised to the hard one at start.
@Suite struct DaemonLimitsTests {
    static let prlimit = ["/usr/bin/prlimit", "/bin/prlimit"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Started with a soft limit of 256 under a hard one of 4096, the daemon runs with 4096.
    /// (Failed before: nothing raised it, /proc/PID/limits said 256.)
    @Test(.enabled(if: prlimit != nil, "prlimit (util-linux) is not installed"))
    func theSoftOpenFilesLimitIsRaisedToTheHardOne() async throws {
        let harness = try DaemonHarness()
        defer { harness.remove() }
        let notify = try NotifyListener()
        let daemon = try harness.launch(prefix: [Self.prlimit!, "--nofile=256:4096"], notify: notify)
        try #require(await notify.wait(for: "READY=1") != nil, "log:\n\(daemon.log)")
        let limits = try String(contentsOfFile: "/proc/\(daemon.pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        #expect(numbers.prefix(2) == [4096, 4096], "\(line)")
        #expect(try await daemon.stop() == 0, "\(daemon.log)")
    }

    /// The caps' one-line errors name the cap and the way out.
    @Test func theRestrictedSocketCapsNameTheCapAndTheRemoveCommand() {
        let perOwner = RestrictedSocketManager.maximumPerOwner
        let total = RestrictedSocketManager.maximumTotal
        #expect(RestrictedSocketManager.capProblem(ownerCount: perOwner - 1, totalCount: total - 1) == nil)
        let mine = try? #require(RestrictedSocketManager.capProblem(ownerCount: perOwner, totalCount: 0))
        #expect(mine?.contains("(\(perOwner))") == true && mine?.contains("authctl socket remove") == true, "\(mine ?? "")")
        let all = try? #require(RestrictedSocketManager.capProblem(ownerCount: 0, totalCount: total))
        #expect(all?.contains("(\(total))") == true && all?.contains("authctl socket remove") == true, "\(all ?? "")")
        #expect(perOwner < total)
        #expect(!(mine ?? "\n").contains("\n") && !(all ?? "\n").contains("\n"))
    }
}
