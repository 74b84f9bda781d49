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
        try vault.removeRestrictedSocket(named: "open", owner: 1001)
        #expect(try vault.restrictedSockets() == [fewer])
    }
}

/// Names are per owner (docs/security.md, "Restricted sockets"): two owners may each keep a
/// `remote`, and one owner's save or removal never touches the other's.
@Suite struct VaultRestrictedSocketOwnerTests {
    @Test func twoOwnersMayEachStoreASocketOfTheSameName() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let mine = StoredRestrictedSocket(name: "remote", owner: 1000, accounts: ["work"], expiresAt: nil)
        let theirs = StoredRestrictedSocket(name: "remote", owner: 1001, accounts: ["mail"], expiresAt: 1_900_000_000)
        let vault = try fixture.open()
        try vault.saveRestrictedSocket(mine)
        try vault.saveRestrictedSocket(theirs)
        #expect(try vault.restrictedSockets() == [mine, theirs])
        try vault.removeRestrictedSocket(named: "remote", owner: 1000)
        #expect(try vault.restrictedSockets() == [theirs])
    }
}
