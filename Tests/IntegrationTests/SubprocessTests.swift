import Foundation
import TestSupport
import Testing

/// The shared child-process type every test that spawns a program relies on: it must capture,
/// bound, and clean up — including grandchildren — so no test can hang or leak the suite.
@Suite struct SubprocessTests {
    @Test func runCapturesStatusOutputInputEnvironmentAndDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "subprocess-test")
        defer { directory.remove() }
        let result = try await Subprocess.run(
            ["sh", "-c", "cat; printf ' %s %s' \"$GREETING\" \"$(pwd)\"; echo oops >&2; exit 7"], stdin: "input",
            environment: ["PATH": "/usr/bin:/bin", "GREETING": "hello"], directory: directory.path)
        #expect(result.status == 7)
        #expect(result.stdout == "input hello \(directory.path)")
        #expect(result.stderr == "oops\n")
    }

    @Test func aSignalledChildReports128PlusTheSignal() async throws {
        let result = try await Subprocess.run(["sh", "-c", "kill -USR1 $$"])
        #expect(result.status == 128 + SIGUSR1)
    }

    @Test func runThrowsAndKillsOnTimeout() async throws {
        let directory = try TemporaryDirectory(prefix: "subprocess-test")
        defer { directory.remove() }
        let pidFile = directory.appending("pid")
        let error = await #expect(throws: SubprocessError.self) {
            try await Subprocess.run(
                ["sh", "-c", "echo started; echo $$ > \(pidFile); exec sleep 300"], timeout: .milliseconds(300))
        }
        guard case .timedOut(_, _, let stdout, _) = error else {
            Issue.record("not a timeout: \(String(describing: error))")
            return
        }
        #expect(stdout == "started\n")
        let pid = try #require(pid_t(Subprocess.readText(pidFile).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(await Self.isGone(pid))
    }

    @Test func runBlockingIsBoundedToo() throws {
        let result = try Subprocess.runBlocking(["sh", "-c", "echo out; exit 3"])
        #expect(result.status == 3 && result.stdout == "out\n")
        #expect(throws: SubprocessError.self) { try Subprocess.runBlocking(["sleep", "300"], timeout: .milliseconds(100)) }
    }

    @Test func terminateEscalatesToSigkillForTheWholeGroup() async throws {
        let directory = try TemporaryDirectory(prefix: "subprocess-test")
        defer { directory.remove() }
        let pidFile = directory.appending("grandchild")
        // Both ignore SIGTERM (ignored signals survive exec), so only the SIGKILL can end them.
        let child = try Subprocess(
            ["sh", "-c", "trap '' TERM; sleep 300 & echo $! > \(pidFile); wait"], stdout: .file(directory.appending("out")))
        let grandchild = try #require(await Self.pid(in: pidFile, of: child))
        #expect(await child.wait(timeout: .milliseconds(50)) == nil)
        #expect(await child.terminate(grace: .milliseconds(200)) == 128 + SIGKILL)
        #expect(await Self.isGone(grandchild))
    }

    @Test func leftoversOfTheGroupDieWithTheLeader() async throws {
        let directory = try TemporaryDirectory(prefix: "subprocess-test")
        defer { directory.remove() }
        let pidFile = directory.appending("grandchild")
        let child = try Subprocess(["sh", "-c", "sleep 300 & echo $! > \(pidFile)"])
        #expect(await child.wait(timeout: .seconds(30)) == 0)
        let grandchild = try #require(pid_t(Subprocess.readText(pidFile).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(await Self.isGone(grandchild))
    }

    @Test func deinitKillsARunningChild() async throws {
        var child: Subprocess? = try Subprocess(["sleep", "300"])
        let pid = try #require(child?.pid)
        #expect(child?.isRunning == true)
        child = nil
        #expect(await Self.isGone(pid))
    }

    @Test func pipedStdinEndsWhenClosed() async throws {
        let directory = try TemporaryDirectory(prefix: "subprocess-test")
        defer { directory.remove() }
        let child = try Subprocess(["cat"], stdin: .pipe, stdout: .file(directory.appending("out")))
        try child.writeToStdin("one\ntwo\n")
        let first = await child.lines(in: directory.appending("out")) { $0.count == 2 }
        #expect(first == ["one", "two"])
        #expect(await child.wait(timeout: .milliseconds(20)) == nil)
        child.closeStdin()
        #expect(await child.wait(timeout: .seconds(30)) == 0)
        #expect(throws: SubprocessError.self) { try child.writeToStdin("late") }
    }

    @Test func theChildInheritsNoDescriptorAbove2() async throws {
        let descriptor = open("/dev/null", O_RDONLY)  // deliberately without O_CLOEXEC
        defer { close(descriptor) }
        try #require(descriptor > 3)
        // dash execs the last command: $$ may be ls itself, whose own directory descriptor is 3.
        let result = try await Subprocess.run(["sh", "-c", "ls /proc/$$/fd"])
        let open = result.stdout.split(separator: "\n")
        #expect(open.contains("2") && open.allSatisfy { ["0", "1", "2", "3"].contains($0) }, "\(open)")
    }

    @Test func aMissingProgramIsASpawnError() async throws {
        #expect(throws: SubprocessError.self) { try Subprocess(["/nonexistent/program"]) }
        #expect(throws: SubprocessError.self) { try Subprocess([]) }
    }

    /// The pid the child wrote to `path`, waiting for it while the child runs.
    static func pid(in path: String, of child: Subprocess) async -> pid_t? {
        let lines = await child.lines(in: path) { !$0.isEmpty }
        return lines?.first.flatMap { pid_t($0) }
    }

    /// Whether `pid` is gone (or a zombie its new parent has yet to reap), polling up to 30 s.
    static func isGone(_ pid: pid_t) async -> Bool {
        for _ in 0..<3000 {
            let stat = Subprocess.readText("/proc/\(pid)/stat")
            // Field 3, after the parenthesised name, is the state.
            if stat.isEmpty || stat.split(separator: ")").last?.dropFirst().first == "Z" { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }
}
