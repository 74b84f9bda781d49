import BrokerCrypto
import Foundation
import TestSupport
import Testing

@testable import BrokerStore

/// RFC 7591 registrations in the vault: keyed by owner and issuer, the registration access token
/// sealed (never stored in clear, bound to its row), resealed by a key rotation.
@Suite struct VaultClientRegistrationTests {
    static func registration(_ clientID: String, owner: UInt32 = 1000, token: String? = "rat-secret-1") -> ClientRegistration {
        ClientRegistration(
            owner: owner, issuer: "https://as.example", clientID: clientID, redirectURI: "http://127.0.0.1:4711/callback",
            registrationClientURI: "https://as.example/register/\(clientID)",
            registrationAccessToken: token.map { Secret(Array($0.utf8)) })
    }

    @Test func savedReadBackPerOwnerAndIssuerAndRemoved() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        try vault.saveClientRegistration(Self.registration("c1"), now: 1)
        try vault.saveClientRegistration(Self.registration("c2", token: nil), now: 2)
        try vault.saveClientRegistration(Self.registration("other", owner: 1001), now: 3)
        let read = try vault.clientRegistrations(owner: 1000, issuer: "https://as.example")
        #expect(read.map(\.clientID) == ["c1", "c2"])
        #expect(read[0].registrationAccessToken?.revealString() == "rat-secret-1" && read[1].registrationAccessToken == nil)
        #expect(try vault.clientRegistrations(owner: 1000, issuer: "https://other.example").isEmpty)
        let raw = try vault.connection.query("SELECT registration_access_token FROM client_registrations WHERE client_id = 'c1'")
        {
            $0.blob(0)
        }
        #expect(!String(decoding: raw[0], as: UTF8.self).contains("rat-secret-1"))
        try vault.removeClientRegistration(owner: 1000, issuer: "https://as.example", clientID: "c1")
        #expect(try vault.clientRegistrations(owner: 1000, issuer: "https://as.example").map(\.clientID) == ["c2"])
    }

    @Test func aTokenMovedToAnotherRowDoesNotOpen() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        try vault.saveClientRegistration(Self.registration("c1"), now: 1)
        try vault.saveClientRegistration(Self.registration("c2", token: "rat-secret-2"), now: 2)
        try vault.connection.run(
            """
            UPDATE client_registrations SET registration_access_token =
            (SELECT registration_access_token FROM client_registrations WHERE client_id = 'c1') WHERE client_id = 'c2'
            """)
        #expect(throws: StoreError.self) { _ = try vault.clientRegistrations(owner: 1000, issuer: "https://as.example") }
    }

    @Test func aKeyRotationResealsTheRegistrationToken() throws {
        let fixture = try VaultFixture()
        defer { fixture.remove() }
        let vault = try fixture.open()
        try vault.saveClientRegistration(Self.registration("c1"), now: 1)
        try vault.rotateKeyFile(at: fixture.keyPath)
        let reopened = try fixture.open()
        let read = try reopened.clientRegistrations(owner: 1000, issuer: "https://as.example")
        #expect(read.first?.registrationAccessToken?.revealString() == "rat-secret-1")
    }
}
