import Foundation
import TestSupport
import Testing

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

/// docs/security.md: "before `authctl` sends anything (`account add` sends a client secret) it
/// reads the listening process's `SO_PEERCRED` and refuses to talk unless it runs as the same uid
/// or root […] A fake daemon planted in a shared `/tmp` gets nothing." The fake listener records
/// every byte it receives until the client hangs up; it must have received none.
@Test(
    .enabled(
        if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
func fakeDaemonOfAnotherUserReceivesNotOneByteOfAnAccountAdd() async throws {
    var template = Array("/tmp/authbroker-identity-XXXXXX".utf8CString)
    let directory = String(cString: try #require(mkdtemp(&template)))
    chmod(directory, 0o777)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/authbroker.sock"
    let received = directory + "/received"
    // Accepts one connection, reads until the client closes it, then writes what it got.
    let script = """
        import socket,sys
        s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); s.settimeout(20)
        c,_=s.accept(); c.settimeout(20); data=b''
        while True:
            chunk=c.recv(65536)
            if not chunk: break
            data+=chunk
        open(sys.argv[2]+'.tmp','wb').write(data)
        import os; os.rename(sys.argv[2]+'.tmp',sys.argv[2])
        """
    let server = try Subprocess([
        "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, path,
        received,
    ])
    defer { server.kill() }
    for _ in 0..<200 where !FileManager.default.fileExists(atPath: path) { try await Task.sleep(for: .milliseconds(25)) }

    let secret = "client-secret-\(UInt64.random(in: 0...UInt64.max))"
    let account = AccountConfiguration(name: "work", issuer: "https://idp.example", clientID: "cli", clientSecret: secret)
    let error = #expect(throws: BrokerClientError.self) {
        try BrokerClient(socketPath: path).call(.addAccount, body: account, timeout: 2)
    }
    #expect(error?.description.contains("runs as uid 65534, not as you") == true)
    #expect(error?.exitCode == ExitCode.failure)
    for _ in 0..<400 where !FileManager.default.fileExists(atPath: received) { try await Task.sleep(for: .milliseconds(25)) }
    let bytes = try #require(FileManager.default.contents(atPath: received), "the fake daemon never saw the client hang up")
    #expect(bytes.isEmpty, "the fake daemon received \(bytes.count) bytes: \(String(decoding: bytes, as: UTF8.self))")
}

/// docs/security.md "The socket": a system daemon's restricted socket sits in
/// `/run/authbroker/restricted/UID/`, two directories of the daemon's below the root-owned one:
/// every directory of the daemon's on the way up must be unwritable by others, and the first that
/// is not the daemon's must be root's and unwritable. (Failed before: only the socket's directory
/// and its parent were looked at, so authctl refused the daemon's own restricted sockets.)
@Test(.enabled(if: getuid() == 0, "needs root to give directories to another uid"))
func systemSocketRuleWalksUpThroughTheDaemonsDirectories() throws {
    var template = Array("/tmp/authbroker-identity-XXXXXX".utf8CString)
    let top = String(cString: try #require(mkdtemp(&template)))
    defer { try? FileManager.default.removeItem(atPath: top) }
    let daemon: UInt32 = 65534
    let run = top + "/run"
    let base = run + "/authbroker"
    let restricted = base + "/restricted"
    let owner = restricted + "/1000"
    for (path, mode) in [(run, 0o755), (base, 0o755), (restricted, 0o710), (owner, 0o710)] {
        #expect(mkdir(path, mode_t(mode)) == 0)
        chmod(path, mode_t(mode))
        if path != run { chown(path, daemon, 0) }
    }
    chmod(top, 0o755)
    #expect(DaemonIdentity.isSystemSocket(owner + "/remote.sock", owner: daemon))
    #expect(DaemonIdentity.isSystemSocket(base + "/authbroker.sock", owner: daemon))
    #expect(!DaemonIdentity.isSystemSocket(owner + "/remote.sock", owner: 4242))
    chmod(restricted, 0o730)  // a directory of the daemon's that its group could write
    #expect(!DaemonIdentity.isSystemSocket(owner + "/remote.sock", owner: daemon))
    chmod(restricted, 0o710)
    chown(run, 4242, 0)  // the first directory not the daemon's is not root's
    #expect(!DaemonIdentity.isSystemSocket(owner + "/remote.sock", owner: daemon))
}
