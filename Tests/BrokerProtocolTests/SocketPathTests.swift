import BrokerProtocol
import Glibc
import Testing

@Test func flagBeatsEnvironmentBeatsDefault() {
    let env = ["AUTHBROKER_SOCKET": "/env.sock", "XDG_RUNTIME_DIR": "/run/user/1000"]
    #expect(SocketPath.resolve(flag: "/flag.sock", environment: env, uid: 1000) == "/flag.sock")
    #expect(SocketPath.resolve(flag: nil, environment: env, uid: 1000) == "/env.sock")
    #expect(
        SocketPath.resolve(flag: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000)
            == "/run/user/1000/authbroker/authbroker.sock")
    #expect(SocketPath.resolve(flag: nil, environment: [:], uid: 1000) == "/tmp/authbroker-1000/authbroker.sock")
    #expect(
        SocketPath.resolve(flag: nil, environment: ["TMPDIR": "/var/tmp/"], uid: 7) == "/var/tmp/authbroker-7/authbroker.sock")
}

@Test func onlyTheTempFallbackDirectoryIsCheckedByAuthctl() {
    #expect(
        SocketPath.fallbackComponents(of: "/tmp/authbroker-7/authbroker.sock", uid: 7)! == (
            "/tmp/authbroker-7", "authbroker.sock"
        ))
    #expect(SocketPath.fallbackComponents(of: "/tmp/authbroker-8/authbroker.sock", uid: 7) == nil)
    #expect(SocketPath.fallbackComponents(of: "/run/user/7/authbroker/authbroker.sock", uid: 7) == nil)
    #expect(SocketPath.fallbackComponents(of: "authbroker.sock", uid: 7) == nil)
}
