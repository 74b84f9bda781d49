import BrokerProtocol
import Glibc
import Testing

@Test func flagBeatsEnvironmentBeatsDefault() {
    let env = ["AUTHBROKER_SOCKET": "/env.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
    #expect(SocketPath.resolve(flag: "/flag.sock", environment: env, uid: 1000) == "/flag.sock")
    #expect(SocketPath.resolve(flag: nil, environment: env, uid: 1000) == "/env.sock")
    #expect(SocketPath.resolve(flag: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000)
        == "/run/user/1000/authbroker/authbroker.sock")
    #expect(SocketPath.resolve(flag: nil, environment: [:], uid: 1000) == "/tmp/authbroker-1000/authbroker.sock")
    #expect(SocketPath.resolve(flag: nil, environment: ["TMPDIR": "/var/tmp/"], uid: 7) == "/var/tmp/authbroker-7/authbroker.sock")
}

@Test func privateDirectoryCheck() throws {
    var template = Array("/tmp/authbroker-sockpath-XXXXXX".utf8CString)
    let dir = String(cString: try #require(mkdtemp(&template)))
    defer { rmdir(dir) }
    chmod(dir, 0o700)
    #expect(SocketPath.checkPrivateDirectory(dir) == nil)
    chmod(dir, 0o755)
    #expect(SocketPath.checkPrivateDirectory(dir)?.contains("chmod 700") == true)
    #expect(SocketPath.checkPrivateDirectory(dir, uid: getuid() + 1)?.contains("belongs to uid") == true)
    #expect(SocketPath.checkPrivateDirectory(dir + "/missing") == nil)
}
