import Testing

@testable import BrokerStore

/// `--persist` restricted sockets survive closing and reopening the vault, and go when removed.
@Suite struct VaultRestrictedSocketTests {
    @Test func storedSocketsSurviveAReopenAndCanBeReplacedAndRemoved() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let kept = StoredRestrictedSocket(name: "kept", owner: 1000, accounts: ["work", "mail"], expiresAt: 1_900_000_000.5)
        let open = StoredRestrictedSocket(name: "open", owner: 1001, accounts: ["ci"], expiresAt: nil)
        do {
            let vault = try fixture.open()
            try vault.saveRestrictedSocket(open)
            try vault.saveRestrictedSocket(kept)
        }
        let vault = try fixture.open()
        #expect(try vault.restrictedSockets() == [kept, open])
        var fewer = kept
        fewer.accounts = ["mail"]
        try vault.saveRestrictedSocket(fewer)
        try vault.removeRestrictedSocket(named: "open")
        #expect(try vault.restrictedSockets() == [fewer])
    }
}
