import Foundation

/// Restricted sockets (docs/remote.md): authctl pointed at one through `AUTHBROKER_SOCKET`, as the
/// far side of an SSH forward or a container would run it.
extension BrokerHarness {
    /// `authctl socket add NAME ARGS…` on the main socket; the socket's path (its stdout line).
    func addRestrictedSocket(_ name: String, _ arguments: [String]) async throws -> String {
        let run = try await authctl(["socket", "add", name] + arguments)
        guard run.status == 0, !run.line.isEmpty else { throw HarnessError.unexpected("socket add: \(run)\n\(daemonLog)") }
        return run.line
    }

    /// `AUTHBROKER_SOCKET=PATH authctl ARGS…` (no --socket), as `user` (nil: the test's own user).
    func authctl(_ arguments: [String], through path: String, as user: OtherUser? = nil) async throws -> Run {
        let name = root + "/authctl-\(UInt64.random(in: 0...UInt64.max))"
        var environment = environment
        environment["AUTHBROKER_SOCKET"] = path
        let command = (user?.prefix ?? []) + [try user?.authctlPath ?? Self.binary("authctl")] + arguments
        let process = try SpawnedProcess(command, environment: environment, stdoutPath: name + ".out", stderrPath: name + ".err")
        let status = await process.waitForExit(timeout: 30)
        return Run(status: status, stdout: process.stdout, stderr: process.stderr, pid: process.pid)
    }

    /// `curl --unix-socket PATH http://localhost/ROUTE`: the status and body, for routes authctl
    /// has no command for (metrics); nil when curl is not installed.
    func curl(_ route: String, through path: String) async throws -> String? {
        guard let curl = ["/usr/bin/curl", "/bin/curl"].first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { return nil }
        let name = root + "/curl-\(UInt64.random(in: 0...UInt64.max))"
        let process = try SpawnedProcess(
            [curl, "-sS", "-w", "\n%{http_code}", "--unix-socket", path, "http://localhost" + route],
            environment: environment, stdoutPath: name + ".out", stderrPath: name + ".err")
        _ = await process.waitForExit(timeout: 30)
        return process.stdout
    }
}
