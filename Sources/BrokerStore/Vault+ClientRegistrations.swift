import BrokerCrypto

/// A client the daemon registered with an authorization server (RFC 7591) for accounts of a
/// protected resource: reused by later logins and restarts (the account keeps its client id and
/// its redirect URI), deleted (RFC 7592) when the last account using it is removed. Keyed by the
/// issuer that issued it: never offered to another authorization server.
public struct ClientRegistration: Sendable, Equatable {
    public var owner: UInt32
    public var issuer: String
    public var clientID: String
    /// The exact redirect URI registered (a loopback URI with the port chosen at registration).
    public var redirectURI: String
    /// RFC 7592's management URL, when the server returned one.
    public var registrationClientURI: String?
    /// RFC 7592's bearer token for that URL, sealed in the vault.
    public var registrationAccessToken: Secret?

    public init(
        owner: UInt32, issuer: String, clientID: String, redirectURI: String, registrationClientURI: String? = nil,
        registrationAccessToken: Secret? = nil
    ) {
        self.owner = owner
        self.issuer = issuer
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.registrationClientURI = registrationClientURI
        self.registrationAccessToken = registrationAccessToken
    }
}

extension Vault {
    /// Stores a new registration, its access token sealed under the new row's id (one transaction).
    public func saveClientRegistration(_ registration: ClientRegistration, now: Double) throws {
        try connection.transaction {
            try connection.run(
                """
                INSERT INTO client_registrations (owner_uid, issuer, client_id, redirect_uri, registration_client_uri, created_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(Int64(registration.owner)), .text(registration.issuer), .text(registration.clientID),
                    .text(registration.redirectURI), registration.registrationClientURI.map(SQLValue.text) ?? .null, .real(now),
                ])
            let id = connection.lastInsertRowID
            if let token = registration.registrationAccessToken {
                let sealed = try seal(token, accountID: id, field: .registrationAccessToken)
                try connection.run(
                    "UPDATE client_registrations SET registration_access_token = ? WHERE id = ?", [.blob(sealed), .integer(id)])
            }
        }
    }

    /// The owner's registrations at `issuer`, oldest first (their access tokens opened).
    public func clientRegistrations(owner: UInt32, issuer: String) throws -> [ClientRegistration] {
        let rows = try connection.query(
            """
            SELECT id, client_id, redirect_uri, registration_client_uri, registration_access_token
            FROM client_registrations WHERE owner_uid = ? AND issuer = ? ORDER BY id
            """, [.integer(Int64(owner)), .text(issuer)]
        ) { row in
            (
                id: row.int64(0), clientID: row.text(1), redirect: row.text(2), uri: row.optionalText(3),
                sealed: row.optionalBlob(4)
            )
        }
        return try rows.map { row in
            ClientRegistration(
                owner: owner, issuer: issuer, clientID: row.clientID, redirectURI: row.redirect, registrationClientURI: row.uri,
                registrationAccessToken: try openOptional(
                    row.sealed, accountID: row.id, accountName: "registration at \(issuer)", field: .registrationAccessToken))
        }
    }

    public func removeClientRegistration(owner: UInt32, issuer: String, clientID: String) throws(StoreError) {
        _ = try connection.run(
            "DELETE FROM client_registrations WHERE owner_uid = ? AND issuer = ? AND client_id = ?",
            [.integer(Int64(owner)), .text(issuer), .text(clientID)])
    }

    /// Rekey: every registration access token resealed under `newKey` (inside `reseal`'s transaction).
    func resealRegistrationTokens(to newKey: SymmetricKey) throws {
        let rows = try connection.query(
            "SELECT id, issuer, registration_access_token FROM client_registrations WHERE registration_access_token IS NOT NULL"
        ) { (id: $0.int64(0), issuer: $0.text(1), sealed: $0.blob(2)) }
        for row in rows {
            let token = try open(
                row.sealed, accountID: row.id, accountName: "registration at \(row.issuer)", field: .registrationAccessToken)
            let resealed = try seal(token, accountID: row.id, field: .registrationAccessToken, key: newKey)
            try connection.run(
                "UPDATE client_registrations SET registration_access_token = ? WHERE id = ?", [.blob(resealed), .integer(row.id)])
        }
    }
}
