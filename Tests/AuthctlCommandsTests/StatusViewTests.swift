import BrokerProtocol
import Testing
import WireFormats

@testable import AuthctlCommands

/// `authctl status`'s view: relative times, what needs attention, the 80-column cut.
@Suite struct StatusViewTests {
    let now = RFC3339.parse("2026-01-01T12:00:00Z")!

    func account(_ state: AccountState, expires: String? = nil, scope: String? = nil) -> AccountStatus {
        var status = AccountStatus(name: "work", state: state, expiresAt: expires, lastRefresh: "2026-01-01T11:57:00Z")
        status.scope = scope
        return status
    }

    @Test func anExpiredTokenSaysHowLongAgoAndNeedsAttention() {
        let expired = account(.active, expires: "2026-01-01T11:57:00Z")
        #expect(StatusView.expiry(expired, now: now) == "expired 3m ago")
        #expect(StatusView.needsAttention(expired, now: now))
        let valid = account(.active, expires: "2026-01-01T13:05:00Z")
        #expect(StatusView.expiry(valid, now: now) == "in 1h05m")
        #expect(!StatusView.needsAttention(valid, now: now))
        #expect(StatusView.ago(valid.lastRefresh, now: now) == "3m ago")
    }

    @Test func loggedOutLoginRequiredAndErrorNeedAttentionRefreshingDoesNot() {
        for state in [AccountState.loggedOut, .loginRequired, .error] {
            #expect(StatusView.needsAttention(account(state), now: now))
        }
        for state in [AccountState.refreshing, .pendingLogin] { #expect(!StatusView.needsAttention(account(state), now: now)) }
    }

    @Test func durationsAreShort() {
        #expect(StatusView.duration(42) == "42s")
        #expect(StatusView.duration(3599) == "59m")
        #expect(StatusView.duration(7200) == "2h00m")
        #expect(StatusView.duration(3 * 86_400 + 5) == "3d")
    }

    @Test func theTableFitsEightyColumnsByCuttingTheScopes() {
        let scope = (1...10).map { "https://api.example.com/scope-\($0)" }.joined(separator: " ")
        let table = StatusView.table([account(.active, expires: "2026-01-01T13:00:00Z", scope: scope)], now: now)
        let lines = table.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(table)")
        #expect(lines.last?.hasSuffix("…") == true, "\(table)")
    }
}
