import BrokerCore
import Foundation
import TestSupport
import Testing

@testable import BrokerProcesses

@Suite struct ProcessIdentityTests {
    /// A stat line shaped like the kernel's: fields 3… after the comm, field 22 = 4242.
    static func statLine(comm: String, start: String = "4242") -> [UInt8] {
        let after = [
            "S", "1", "7", "7", "0", "-1", "4194560", "10", "0", "0", "0", "1", "2", "0", "0", "20", "0", "1", "0", start, "999",
            "12",
        ]
        return Array("31 (\(comm)) \(after.joined(separator: " "))\n".utf8)
    }

    @Test func startTimeIsField22CountedFromTheLastParenthesis() {
        let parsed = ProcessIdentity.parseStat(Self.statLine(comm: "a) 1 2 3 (b"))
        #expect(parsed?.command == "a) 1 2 3 (b")
        #expect(parsed?.startTime == "4242")
        #expect(ProcessIdentity.parseStat(Self.statLine(comm: "plain"))?.startTime == "4242")
    }

    @Test func malformedStatLinesAreRejected() {
        #expect(ProcessIdentity.parseStat([]) == nil)
        #expect(ProcessIdentity.parseStat(Array("31 (x S 1 2 3".utf8)) == nil)
        #expect(ProcessIdentity.parseStat(Array("31 (x) S 1 2 3\n".utf8)) == nil)  // too few fields
        #expect(ProcessIdentity.parseStat(Self.statLine(comm: "x", start: "12ab")) == nil)
        #expect(ProcessIdentity.parseStat(Self.statLine(comm: "x", start: String(repeating: "9", count: 21))) == nil)
        #expect(ProcessIdentity.parseStat(Array(") (".utf8)) == nil)
    }

    /// Field 4 (the parent's pid), counted from the last ")" like the start time: a comm with
    /// spaces, parentheses and digits cannot shift it; a line cut inside the field is refused.
    @Test func parentIDIsField4CountedFromTheLastParenthesis() {
        #expect(ProcessIdentity.parseParentID(Self.statLine(comm: "a) S 99 (b")) == 1)
        #expect(ProcessIdentity.parseParentID(Self.statLine(comm: "sh -c x) Z 55 8")) == 1)
        #expect(ProcessIdentity.parseParentID(Array("31 (git) S 4242 7 0\n".utf8)) == 4242)
        #expect(ProcessIdentity.parseParentID(Array("31 (git) S 4242".utf8)) == nil)  // truncated inside the field
        #expect(ProcessIdentity.parseParentID(Array("31 (git) S".utf8)) == nil)
        #expect(ProcessIdentity.parseParentID(Array("31 (git S 4242 7\n".utf8)) == nil)  // no ")"
        #expect(ProcessIdentity.parseParentID(Array("31 (git) S -1 7\n".utf8)) == nil)
        #expect(ProcessIdentity.parseParentID(Array("31 (git) S 99999999999 7\n".utf8)) == nil)  // beyond Int32
        #expect(ProcessIdentity.parseParentID([]) == nil)
    }

    /// The comm is whatever name the process was started under: a link named like a stat field
    /// list must not shift the start time, and exe still names the real file.
    @Test func aLiveProcessWithATrickyNameIsRecorded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let link = directory.appending("x) R 1 (y")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/bin/sleep")
        let child = try Subprocess([link, "30"])
        defer { child.kill() }
        let own = ProcessIdentity.of(pid: getpid())
        let identity = ProcessIdentity.of(pid: child.pid)
        let sleep = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child.pid)/exe")
        #expect(identity.executable == sleep)
        #expect(identity.command == "x) R 1 (y")
        // Started after this test process: its start time (ticks since boot) is not earlier.
        let childStart = try #require(UInt64(identity.startTime))
        let ownStart = try #require(UInt64(own.startTime))
        #expect(childStart >= ownStart)
        #expect(own.executable == (try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")))
    }

    @Test func goneOrInvalidProcessesAreUnknown() {
        #expect(ProcessIdentity.of(pid: 0) == .unknown)
        #expect(ProcessIdentity.of(pid: Int32.max) == .unknown)
    }
}
