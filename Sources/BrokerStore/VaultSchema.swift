/// The vault's schema, as migrations. Append new migrations; never edit a released one.
///
/// Tables are STRICT (SQLite ≥ 3.37) so a wrong type is an error, not a silent conversion.
/// Times are Unix seconds (REAL). Sealed columns hold AES-256-GCM envelopes (see `AESGCM`).
enum VaultSchema {
    /// The number of migrations (the `user_version` of an up-to-date vault).
    static var count: Int { migrations(existingOwner: 0).count }

    /// - Parameter existingOwner: who owns the accounts that predate owners (the daemon's uid: in
    ///   per-user mode they were always its user's accounts).
    static func migrations(existingOwner: UInt32) -> [Migration] {
        [
            Migration(
                name: "create-vault",
                sql: """
                    CREATE TABLE meta (
                        key TEXT PRIMARY KEY,
                        value ANY NOT NULL
                    ) STRICT;
                    -- AUTOINCREMENT: an id is never reused, so a sealed value (whose AAD names the id)
                    -- can never become valid for a later account.
                    CREATE TABLE accounts (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL UNIQUE,
                        issuer TEXT NOT NULL,
                        client_id TEXT NOT NULL,
                        scopes TEXT NOT NULL,
                        options TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
                        client_secret BLOB,
                        created_at REAL NOT NULL
                    ) STRICT;
                    CREATE TABLE tokens (
                        account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
                        access_token BLOB,
                        refresh_token BLOB,
                        id_token BLOB,
                        token_type TEXT,
                        scope TEXT,
                        expires_at REAL,
                        obtained_at REAL,
                        last_refresh_at REAL,
                        last_error_code TEXT,
                        last_error_message TEXT,
                        subject TEXT
                    ) STRICT;
                    CREATE TABLE provider_metadata (
                        issuer TEXT PRIMARY KEY,
                        document TEXT NOT NULL,
                        fetched_at REAL NOT NULL
                    ) STRICT;
                    CREATE TABLE jwks_cache (
                        jwks_uri TEXT PRIMARY KEY,
                        document TEXT NOT NULL,
                        fetched_at REAL NOT NULL
                    ) STRICT;
                    """),
            // Provider metadata was cached by issuer alone, so a discovery document that claimed
            // another account's issuer (via that account's own `discovery_url`) was served to every
            // account of that issuer after a restart. Cached copies cannot tell which document they
            // came from, so they are dropped (each account refetches its own once) and keyed by source.
            Migration(
                name: "provider-metadata-by-source",
                sql: """
                    DROP TABLE provider_metadata;
                    CREATE TABLE provider_metadata (
                        issuer TEXT NOT NULL,
                        document_url TEXT NOT NULL,
                        document TEXT NOT NULL,
                        fetched_at REAL NOT NULL,
                        PRIMARY KEY (issuer, document_url)
                    ) STRICT;
                    """),
            accountOwners(existingOwner: existingOwner),
            configurationDocument,
            // Restricted sockets made with `--persist`, recreated at start. Account names cannot hold
            // a newline (AccountName), so the grant is one newline-separated column.
            Migration(
                name: "restricted-sockets",
                sql: """
                    CREATE TABLE restricted_sockets (
                        name TEXT PRIMARY KEY,
                        owner_uid INTEGER NOT NULL,
                        accounts TEXT NOT NULL,
                        expires_at REAL
                    ) STRICT;
                    """),
            // The DPoP key lives in the tokens row: it is saved, replaced and deleted with the tokens
            // bound to it, in the same statement (no window where tokens and key disagree).
            Migration(name: "dpop-key", sql: "ALTER TABLE tokens ADD COLUMN dpop_key BLOB;"),
            // Restricted socket names are per owner (each owner has a directory of sockets): two
            // owners may each have `remote`. SQLite cannot change a primary key, so the table is rebuilt.
            Migration(
                name: "restricted-sockets-per-owner",
                sql: """
                    CREATE TABLE restricted_sockets_per_owner (
                        owner_uid INTEGER NOT NULL,
                        name TEXT NOT NULL,
                        accounts TEXT NOT NULL,
                        expires_at REAL,
                        PRIMARY KEY (owner_uid, name)
                    ) STRICT;
                    INSERT INTO restricted_sockets_per_owner (owner_uid, name, accounts, expires_at)
                        SELECT owner_uid, name, accounts, expires_at FROM restricted_sockets;
                    DROP TABLE restricted_sockets;
                    ALTER TABLE restricted_sockets_per_owner RENAME TO restricted_sockets;
                    """),
            // A restricted socket's named narrowings, newline-separated like its accounts (a
            // `TokenNarrowing` spec holds no newline); '' for none, as every older row has.
            Migration(
                name: "restricted-socket-narrowings",
                sql: "ALTER TABLE restricted_sockets ADD COLUMN narrowings TEXT NOT NULL DEFAULT '';"),
            // RFC 7591 registrations the daemon made for accounts of a protected resource, keyed by
            // the authorization server's issuer: a client id is only ever used with the issuer that
            // issued it. The registration access token is sealed under the row's id (its AAD names
            // the field `registration_access_token`, which no account row uses).
            Migration(
                name: "client-registrations",
                sql: """
                    CREATE TABLE client_registrations (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        owner_uid INTEGER NOT NULL CHECK (owner_uid BETWEEN 0 AND 4294967295),
                        issuer TEXT NOT NULL,
                        client_id TEXT NOT NULL,
                        redirect_uri TEXT NOT NULL,
                        registration_client_uri TEXT,
                        registration_access_token BLOB,
                        created_at REAL NOT NULL,
                        UNIQUE (owner_uid, issuer, client_id)
                    ) STRICT;
                    """),
        ]
    }

    /// Accounts get an owner uid and names become unique per owner. SQLite cannot drop the old
    /// `UNIQUE (name)`, so both tables are rebuilt. The tokens are moved aside first: with foreign
    /// keys on, dropping `accounts` while `tokens` references it would cascade-delete every token.
    /// The AUTOINCREMENT high-water mark is carried over, so no id is ever reused (sealed values
    /// name their account id in the AAD).
    static func accountOwners(existingOwner: UInt32) -> Migration {
        Migration(
            name: "account-owners",
            sql: """
                CREATE TABLE accounts_owned (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    owner_uid INTEGER NOT NULL CHECK (owner_uid BETWEEN 0 AND 4294967295),
                    name TEXT NOT NULL,
                    issuer TEXT NOT NULL,
                    client_id TEXT NOT NULL,
                    scopes TEXT NOT NULL,
                    options TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
                    client_secret BLOB,
                    created_at REAL NOT NULL,
                    UNIQUE (owner_uid, name)
                ) STRICT;
                INSERT INTO accounts_owned (id, owner_uid, name, issuer, client_id, scopes, options, client_secret, created_at)
                    SELECT id, \(existingOwner), name, issuer, client_id, scopes, options, client_secret, created_at
                    FROM accounts;
                CREATE TEMP TABLE sequence_before AS SELECT seq FROM sqlite_sequence WHERE name = 'accounts';
                CREATE TEMP TABLE tokens_moving AS SELECT * FROM tokens;
                DROP TABLE tokens;
                DROP TABLE accounts;
                ALTER TABLE accounts_owned RENAME TO accounts;
                UPDATE sqlite_sequence SET seq = max(seq, (SELECT coalesce(max(seq), 0) FROM sequence_before))
                    WHERE name = 'accounts';
                INSERT INTO sqlite_sequence (name, seq)
                    SELECT 'accounts', seq FROM sequence_before
                    WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'accounts');
                -- The same table as in create-vault, spelled out again: a released migration's text
                -- is frozen, so the two must not share a constant that a later edit could change.
                CREATE TABLE tokens (
                    account_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
                    access_token BLOB,
                    refresh_token BLOB,
                    id_token BLOB,
                    token_type TEXT,
                    scope TEXT,
                    expires_at REAL,
                    obtained_at REAL,
                    last_refresh_at REAL,
                    last_error_code TEXT,
                    last_error_message TEXT,
                    subject TEXT
                ) STRICT;
                INSERT INTO tokens SELECT * FROM tokens_moving;
                DROP TABLE temp.tokens_moving;
                DROP TABLE temp.sequence_before;
                """)
    }
}
