import BrokerProtocol
import Testing

@testable import AuthctlCommands

/// A failed login is one sentence: the daemon's, which names the account already, or the reason
/// after "The login for 'NAME' failed:" — never both.
@Suite struct LoginFailureWordingTests {
    @Test func theDaemonsSentenceIsNotWrappedAgain() {
        let daemon = WireError(
            code: .loginRequired, message: "The login for 'work' failed: the provider refused it: access_denied")
        #expect(LoginWait.failure(of: "work", daemon) == daemon.message)
        let bare = WireError(code: .internal, message: "the token store failed: disk full")
        #expect(LoginWait.failure(of: "work", bare) == "The login for 'work' failed: the token store failed: disk full")
        #expect(LoginWait.failure(of: "work", nil) == "The login for 'work' failed (no reason given).")
    }
}
