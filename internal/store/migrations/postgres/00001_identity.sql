-- Identity and request bookkeeping: workspaces, users, tokens, grants, idempotency records.
-- Times are Unix milliseconds on both engines.

-- +goose Up
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE workspaces (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);

CREATE TABLE users (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    name         TEXT NOT NULL,
    email        TEXT NOT NULL,
    avatar_url   TEXT NOT NULL DEFAULT '',
    created_ms   BIGINT NOT NULL
);
-- Keyset order of GET /v2/users.
CREATE UNIQUE INDEX users_workspace_order ON users (workspace_id, created_ms, id);
CREATE UNIQUE INDEX users_workspace_email ON users (workspace_id, email);

-- A token's id is its bot id. Only a SHA-256 of the secret is kept.
CREATE TABLE tokens (
    id               TEXT PRIMARY KEY,
    workspace_id     TEXT NOT NULL REFERENCES workspaces (id),
    owner_id         TEXT NOT NULL REFERENCES users (id),
    integration_id   TEXT NOT NULL,
    name             TEXT NOT NULL,
    secret_hash      TEXT NOT NULL UNIQUE,
    scopes           TEXT NOT NULL,
    workspace_scoped BOOLEAN NOT NULL,
    created_ms       BIGINT NOT NULL,
    revoked_ms       BIGINT NOT NULL DEFAULT 0
);

-- The pages and databases a token that is not workspace-scoped reaches, with everything beneath them.
CREATE TABLE grants (
    token_id   TEXT NOT NULL REFERENCES tokens (id),
    target_id  TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (token_id, target_id)
);

-- One row per (token, Idempotency-Key). state: pending (claimed, nothing committed),
-- committed (the request's write transaction committed), done (response stored).
CREATE TABLE idempotency_keys (
    token_id     TEXT NOT NULL,
    key          TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    state        TEXT NOT NULL,
    status       INTEGER NOT NULL DEFAULT 0,
    headers      TEXT NOT NULL DEFAULT '{}',
    body         BYTEA,
    claimed_ms   BIGINT NOT NULL,
    created_ms   BIGINT NOT NULL,
    PRIMARY KEY (token_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_ms);

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE grants;
DROP TABLE tokens;
DROP TABLE users;
DROP TABLE workspaces;
DROP TABLE settings;
