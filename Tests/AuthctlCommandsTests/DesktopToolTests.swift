import Glibc
import Testing

@testable import AuthctlCommands

/// The bounded runner of the desktop's tools: a missing tool is nil, a hung one is killed.
@Suite struct DesktopToolTests {
    @Test func stdoutAndTheExitStatusComeBack() {
        #expect(DesktopTool.run(["sh", "-c", "echo one; echo two; exit 3"]) == .init(status: 3, output: "one\ntwo\n"))
    }

    @Test func aToolThatIsNotInstalledIsNil() {
        #expect(DesktopTool.run(["authbroker-no-such-tool-\(UInt32.random(in: 0...UInt32.max))"]) == nil)
    }

    @Test func aToolThatDoesNotFinishIsKilledAtTheDeadline() {
        #expect(DesktopTool.run(["sh", "-c", "echo started; exec sleep 60"], timeout: 1) == .init(status: 137, output: ""))
    }

    @Test func aToolInheritsNoneOfOurDescriptors() throws {
        let open = Glibc.open("/dev/null", O_RDONLY)  // without close-on-exec
        try #require(open >= 3)
        defer { close(open) }
        #expect(DesktopTool.run(["sh", "-c", "ls /proc/self/fd/\(open) 2>/dev/null; exit 0"]) == .init(status: 0, output: ""))
    }
}
