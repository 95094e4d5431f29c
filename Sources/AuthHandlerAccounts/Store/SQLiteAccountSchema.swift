import AuthHandlerStore

/// The accounts store's tables: the owner `accounts` of its file's `schema_versions` (``SQLiteMigrations``), forward
/// only (docs/ACCOUNTS.md "Storage").
enum SQLiteAccountSchema {
    static let accounts = SQLiteMigrations(owner: "accounts", steps: migrations)

    /// The fixed-window counters of the accounts' throttles (the table of version 1, as
    /// `SQLiteCounterTable.createStatement` would write it).
    static let counters = SQLiteCounterTable(name: "account_counters")

    /// Migrations by the version they produce; a released step is never edited, a change is a new step.
    ///
    /// Rowid tables with `NOT NULL` spelled out (in a rowid table `PRIMARY KEY` alone allows NULL:
    /// https://sqlite.org/lang_createtable.html#the_primary_key). Times are Unix seconds (REAL), booleans 0 or 1,
    /// digests SHA-256 (BLOB). Names are prefixed `account_` so that nothing collides with another owner's tables
    /// should one file be shared. A UNIQUE index lets several NULLs through (https://sqlite.org/lang_createindex.html),
    /// so users without an e-mail do not collide. Every row of a user goes with it (`ON DELETE CASCADE`, with
    /// `PRAGMA foreign_keys = ON` on the connection: https://sqlite.org/foreignkeys.html).
    static let migrations: [String] = [
        """
        CREATE TABLE account_users(
            local_id TEXT NOT NULL PRIMARY KEY,
            email TEXT,
            normalized_email TEXT,
            email_verified INTEGER NOT NULL,
            display_name TEXT,
            photo_url TEXT,
            password_hash TEXT,
            password_version INTEGER NOT NULL,
            disabled INTEGER NOT NULL,
            custom_claims TEXT,
            created_at REAL NOT NULL,
            last_sign_in_at REAL,
            valid_since REAL NOT NULL
        );
        CREATE UNIQUE INDEX account_users_normalized_email ON account_users(normalized_email);
        CREATE TABLE account_identities(
            provider_id TEXT NOT NULL,
            provider_user_id TEXT NOT NULL,
            local_id TEXT NOT NULL REFERENCES account_users(local_id) ON DELETE CASCADE,
            email TEXT,
            display_name TEXT,
            created_at REAL NOT NULL,
            PRIMARY KEY(provider_id, provider_user_id)
        );
        CREATE UNIQUE INDEX account_identities_user_provider ON account_identities(local_id, provider_id);
        CREATE TABLE account_sessions(
            id TEXT NOT NULL PRIMARY KEY,
            local_id TEXT NOT NULL REFERENCES account_users(local_id) ON DELETE CASCADE,
            sign_in_provider TEXT NOT NULL,
            signed_in_at REAL NOT NULL,
            auth_time REAL NOT NULL,
            last_refresh_at REAL NOT NULL,
            revoked_at REAL
        );
        CREATE INDEX account_sessions_local_id ON account_sessions(local_id);
        CREATE TABLE account_refresh_tokens(
            digest BLOB NOT NULL PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES account_sessions(id) ON DELETE CASCADE,
            issued_at REAL NOT NULL,
            first_used_at REAL,
            successor_digest BLOB,
            sealed_successor BLOB
        );
        CREATE INDEX account_refresh_tokens_session_id ON account_refresh_tokens(session_id);
        CREATE TABLE account_codes(
            digest BLOB NOT NULL PRIMARY KEY,
            kind TEXT NOT NULL,
            local_id TEXT NOT NULL REFERENCES account_users(local_id) ON DELETE CASCADE,
            email TEXT NOT NULL,
            new_email TEXT,
            password_version INTEGER NOT NULL,
            created_at REAL NOT NULL,
            expires_at REAL NOT NULL
        );
        CREATE INDEX account_codes_local_id ON account_codes(local_id);
        CREATE INDEX account_codes_expires_at ON account_codes(expires_at);
        CREATE TABLE account_pending_credentials(
            digest BLOB NOT NULL PRIMARY KEY,
            local_id TEXT NOT NULL REFERENCES account_users(local_id) ON DELETE CASCADE,
            expires_at REAL NOT NULL
        );
        CREATE INDEX account_pending_credentials_local_id ON account_pending_credentials(local_id);
        CREATE INDEX account_pending_credentials_expires_at ON account_pending_credentials(expires_at);
        CREATE TABLE account_counters(
            key_hash BLOB NOT NULL PRIMARY KEY,
            count INTEGER NOT NULL,
            expires_at REAL NOT NULL
        );
        CREATE INDEX account_counters_expires_at ON account_counters(expires_at);
        """,
        // 2: a session started for a browser in cookie mode is refreshed only through its cookie (HTTP-API.md §3.10).
        """
        ALTER TABLE account_sessions ADD COLUMN cookie_bound INTEGER NOT NULL DEFAULT 0;
        """,
        // 3: a password hash imported from another system, until the user's first sign-in upgrades it
        // (docs/ACCOUNTS.md "Imported users").
        """
        ALTER TABLE account_users ADD COLUMN legacy_password_hash TEXT;
        """,
    ]
}
