import AuthHandlerStore

/// The accounts store's tables in PostgreSQL: the owner `accounts` of the database's `schema_versions`
/// (``PostgresMigrations``), forward only (docs/ACCOUNTS.md "Storage"). Its steps are its own, not SQLite's: each
/// engine's version counts its own steps.
enum PostgresAccountSchema {
    static let accounts = PostgresMigrations(owner: "accounts", steps: migrations)

    /// The fixed-window counters of the accounts' throttles (the table of version 1).
    static let counters = PostgresCounterTable(name: "account_counters")

    /// Migrations by the version they produce; a released step is never edited, a change is a new step.
    ///
    /// The columns of the SQLite schema, with PostgreSQL's types: times are Unix seconds (`DOUBLE PRECISION`, exact for
    /// the stored values as SQLite's REAL is), booleans `BOOLEAN`, digests `BYTEA`. A UNIQUE index lets several NULLs
    /// through (https://www.postgresql.org/docs/15/indexes-unique.html), so users without an e-mail do not collide.
    /// The constraints are named, because the store maps a violation to its error by the name
    /// (`PostgresAccountStore.mapped`).
    static let migrations: [String] = [
        """
        CREATE TABLE account_users(
            local_id TEXT NOT NULL CONSTRAINT account_users_pkey PRIMARY KEY,
            email TEXT,
            normalized_email TEXT,
            email_verified BOOLEAN NOT NULL,
            display_name TEXT,
            photo_url TEXT,
            password_hash TEXT,
            password_version BIGINT NOT NULL,
            disabled BOOLEAN NOT NULL,
            custom_claims TEXT,
            created_at DOUBLE PRECISION NOT NULL,
            last_sign_in_at DOUBLE PRECISION,
            valid_since DOUBLE PRECISION NOT NULL
        );
        CREATE UNIQUE INDEX account_users_normalized_email ON account_users(normalized_email);
        CREATE TABLE account_identities(
            provider_id TEXT NOT NULL,
            provider_user_id TEXT NOT NULL,
            local_id TEXT NOT NULL REFERENCES account_users(local_id) ON DELETE CASCADE,
            email TEXT,
            display_name TEXT,
            created_at DOUBLE PRECISION NOT NULL,
            CONSTRAINT account_identities_pkey PRIMARY KEY(provider_id, provider_user_id)
        );
        CREATE UNIQUE INDEX account_identities_user_provider ON account_identities(local_id, provider_id);
        CREATE TABLE account_sessions(
            id TEXT NOT NULL CONSTRAINT account_sessions_pkey PRIMARY KEY,
            local_id TEXT NOT NULL REFERENCES account_users(local_id) ON DELETE CASCADE,
            sign_in_provider TEXT NOT NULL,
            signed_in_at DOUBLE PRECISION NOT NULL,
            auth_time DOUBLE PRECISION NOT NULL,
            last_refresh_at DOUBLE PRECISION NOT NULL,
            revoked_at DOUBLE PRECISION,
            cookie_bound BOOLEAN NOT NULL DEFAULT false
        );
        CREATE INDEX account_sessions_local_id ON account_sessions(local_id);
        CREATE TABLE account_refresh_tokens(
            digest BYTEA NOT NULL CONSTRAINT account_refresh_tokens_pkey PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES account_sessions(id) ON DELETE CASCADE,
            issued_at DOUBLE PRECISION NOT NULL,
            first_used_at DOUBLE PRECISION,
            successor_digest BYTEA,
            sealed_successor BYTEA
        );
        CREATE INDEX account_refresh_tokens_session_id ON account_refresh_tokens(session_id);
        CREATE TABLE account_codes(
            digest BYTEA NOT NULL CONSTRAINT account_codes_pkey PRIMARY KEY,
            kind TEXT NOT NULL,
            local_id TEXT NOT NULL REFERENCES account_users(local_id) ON DELETE CASCADE,
            email TEXT NOT NULL,
            new_email TEXT,
            password_version BIGINT NOT NULL,
            created_at DOUBLE PRECISION NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX account_codes_local_id ON account_codes(local_id);
        CREATE INDEX account_codes_expires_at ON account_codes(expires_at);
        CREATE TABLE account_pending_credentials(
            digest BYTEA NOT NULL CONSTRAINT account_pending_credentials_pkey PRIMARY KEY,
            local_id TEXT NOT NULL REFERENCES account_users(local_id) ON DELETE CASCADE,
            expires_at DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX account_pending_credentials_local_id ON account_pending_credentials(local_id);
        CREATE INDEX account_pending_credentials_expires_at ON account_pending_credentials(expires_at);
        CREATE TABLE account_counters(
            key_hash BYTEA NOT NULL PRIMARY KEY,
            count BIGINT NOT NULL,
            expires_at DOUBLE PRECISION NOT NULL
        );
        CREATE INDEX account_counters_expires_at ON account_counters(expires_at);
        """,
        // 2: an imported password hash not yet upgraded to argon2id (docs/ACCOUNTS.md "Imported users").
        """
        ALTER TABLE account_users ADD COLUMN legacy_password_hash TEXT;
        """,
        // 3: the keys the instances share when the config names none (docs/ACCOUNTS.md "Keys the database keeps"):
        // `state-key`, and `signing-key` sealed under a key derived from the state key.
        """
        CREATE TABLE account_keys(
            name TEXT NOT NULL PRIMARY KEY,
            value BYTEA NOT NULL,
            created_at DOUBLE PRECISION NOT NULL
        );
        """,
    ]
}
