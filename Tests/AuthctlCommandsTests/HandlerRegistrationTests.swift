import Testing

@testable import AuthctlCommands

/// Which socket the desktop-launched `authctl callback` is told about: none when the login used
/// the default its session's XDG_RUNTIME_DIR leads to, the login's own otherwise.
@Suite struct HandlerRegistrationTests {
    let session = ["XDG_RUNTIME_DIR": "/run/user/1000", "HOME": "/home/u"]

    private func context(_ socketPath: String, _ extra: [String: String] = [:]) -> CommandContext {
        CommandContext(socketPath: socketPath, environment: session.merging(extra) { $1 })
    }

    @Test func theDefaultSocketIsNotPassed() {
        #expect(HandlerRegistration.handlerSocket(context("/run/user/1000/authbroker/authbroker.sock")) == nil)
    }

    @Test func aSocketFromTheFlagOrTheVariableIsPassed() {
        #expect(
            HandlerRegistration.handlerSocket(context("/run/authbroker/authbroker.sock")) == "/run/authbroker/authbroker.sock")
        // The variable lives in this shell, not in the browser the desktop started earlier.
        let fromVariable = context("/srv/a.sock", ["AUTHBROKER_SOCKET": "/srv/a.sock"])
        #expect(HandlerRegistration.handlerSocket(fromVariable) == "/srv/a.sock")
    }

    @Test func aRelativeSocketBecomesAbsolute() throws {
        let passed = try #require(HandlerRegistration.handlerSocket(context("run/a.sock")))
        #expect(passed.hasPrefix("/") && passed.hasSuffix("/run/a.sock"), "\(passed)")
    }
}
