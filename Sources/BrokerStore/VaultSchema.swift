/// The vault's schema, as migrations. Append new migrations; never edit a released one.
///
/// Tables are STRICT (SQLite ≥ 3.37) so a wrong type is an error, not a silent conversion.
/// Times are Unix seconds (REAL). Sealed columns hold AES-256-GCM envelopes (see `AESGCM`).
enum VaultSchema {
    static let migrations: [Migration] = [
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
    ]
}
