import BrokerProtocol
import WireFormats

extension VaultSchema {
    /// The `issuer`, `client_id`, `scopes` and `options` columns become one versioned document in
    /// `configuration` (see `AccountDocument`). `options` held the fields without a column as JSON
    /// with the synthesized camelCase keys of the former `StoredAccountOptions`, read with `try?`:
    /// a renamed Swift property would have dropped every account's options without a word.
    ///
    /// Frozen like every released migration: the key mapping is spelled out here, not taken from
    /// the live model. Keys the old reader ignored are dropped (they never had an effect). Options
    /// that are not a JSON object are kept verbatim under `unmigrated_options`, which no reader
    /// accepts, so the account is reported unreadable instead of losing them quietly.
    static let configurationDocument = Migration(name: "account-configuration-document") { connection in
        try connection.execute(
            "ALTER TABLE accounts ADD COLUMN configuration TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(configuration))")
        let rows = try connection.query("SELECT id, issuer, client_id, scopes, options FROM accounts") { row in
            (id: row.int64(0), issuer: row.text(1), clientID: row.text(2), scopes: row.text(3), options: row.text(4))
        }
        for row in rows {
            let document = ConfigurationDocumentV1.document(
                issuer: row.issuer, clientID: row.clientID, scopes: row.scopes, options: row.options)
            try connection.run("UPDATE accounts SET configuration = ? WHERE id = ?", [.text(document), .integer(row.id)])
        }
        try connection.execute(
            """
            ALTER TABLE accounts DROP COLUMN issuer;
            ALTER TABLE accounts DROP COLUMN client_id;
            ALTER TABLE accounts DROP COLUMN scopes;
            ALTER TABLE accounts DROP COLUMN options;
            """)
    }
}

/// The version-1 document built from the columns of schema version 3 (frozen; see above).
enum ConfigurationDocumentV1 {
    /// `StoredAccountOptions`' synthesized keys and the model keys they became.
    static let optionKeys: [String: String] = [
        "audience": "audience", "redirectHost": "redirect_host", "redirectPort": "redirect_port",
        "redirectPath": "redirect_path", "extraParameters": "extra_parameters", "endpoints": "endpoints",
        "discoveryURL": "discovery_url", "gitURLPrefix": "git_url_prefix", "gitUsername": "git_username",
    ]

    static func document(issuer: String, clientID: String, scopes: String, options: String) -> String {
        var fields: [String: JSONValue] = [
            "version": .number("1"), "issuer": .string(issuer), "client_id": .string(clientID),
            // Split as the old reader did: on single spaces, empty pieces dropped.
            "scopes": .array(scopes.split(separator: " ").map { .string(String($0)) }),
            "extra_parameters": .object([:]),
        ]
        if case .object(let old)? = try? WireJSON.parse(Array(options.utf8)) {
            for (oldKey, value) in old where value != .null {
                if let key = optionKeys[oldKey] { fields[key] = value }
            }
        } else {
            fields["unmigrated_options"] = .string(options)
        }
        return String(decoding: WireJSON.serialize(.object(fields)), as: UTF8.self)
    }
}
