import Foundation
import Testing
import TestSupport

@testable import BrokerProtocol

@Test func systemSocketRuleNeedsARootOwnedUnwritableGrandparent() throws {
    // /tmp is root-owned but world-writable: anyone could have made a directory there first.
    var template = Array("/tmp/authbroker-identity-XXXXXX".utf8CString)
    let directory = String(cString: try #require(mkdtemp(&template)))
    defer { rmdir(directory) }
    #expect(!DaemonIdentity.isSystemSocket(directory + "/authbroker.sock", owner: getuid()))
    #expect(DaemonIdentity.parent(of: "/run/authbroker/authbroker.sock") == "/run/authbroker")
    #expect(DaemonIdentity.parent(of: "/x") == "/")
}

/// A process of another user listening on the path we would use must not receive our requests.
@Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
func socketOfAnotherUserIsRefused() async throws {
    var template = Array("/tmp/authbroker-identity-XXXXXX".utf8CString)
    let directory = String(cString: try #require(mkdtemp(&template)))
    chmod(directory, 0o777)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/authbroker.sock"
    let server = try Subprocess([
        "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
        "import socket,sys,time; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); time.sleep(20)", path,
    ])
    defer { server.kill() }
    for _ in 0..<200 where !FileManager.default.fileExists(atPath: path) { try await Task.sleep(for: .milliseconds(25)) }

    let error = #expect(throws: BrokerClientError.self) {
        try BrokerClient(socketPath: path).get("/v1/ping", as: PingResult.self, timeout: 2)
    }
    #expect(error?.description.contains("runs as uid 65534, not as you") == true)
    #expect(error?.exitCode == ExitCode.failure)
}
