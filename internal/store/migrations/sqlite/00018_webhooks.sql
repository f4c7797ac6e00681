-- Webhooks read the event feed (00017) by position, like a client holding a cursor: position
-- is the last event the receiver acknowledged (or that the webhook's types skip). One server
-- at a time delivers a webhook's events, in order: it claims the row for a while by setting
-- lease_owner and lease_until, and every later write of the row checks it still holds it.
-- attempts and failing_since_ms count the failures of the event after position; a failure
-- waits until next_attempt_ms, and one that has lasted the retry window turns status to
-- failing, which keeps the position (and so the backlog) until a PATCH makes it active again.
-- webhook_deliveries keeps the most recent attempts of each webhook, for GET …/deliveries.

-- +goose Up
CREATE TABLE webhooks (
    id               TEXT PRIMARY KEY,
    workspace_id     TEXT NOT NULL,
    url              TEXT NOT NULL,
    event_types      TEXT NOT NULL,
    description      TEXT NOT NULL,
    secret           TEXT NOT NULL,
    status           TEXT NOT NULL,
    position         BIGINT NOT NULL,
    created_ms       BIGINT NOT NULL,
    lease_owner      TEXT NOT NULL DEFAULT '',
    lease_until      BIGINT NOT NULL DEFAULT 0,
    next_attempt_ms  BIGINT NOT NULL DEFAULT 0,
    attempts         INTEGER NOT NULL DEFAULT 0,
    failing_since_ms BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX webhooks_workspace ON webhooks (workspace_id, created_ms);
CREATE INDEX webhooks_due ON webhooks (status, next_attempt_ms);

CREATE TABLE webhook_deliveries (
    webhook_id  TEXT NOT NULL,
    id          TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    event_seq   BIGINT NOT NULL,
    attempt     INTEGER NOT NULL,
    status_code INTEGER NOT NULL,
    error       TEXT NOT NULL,
    duration_ms BIGINT NOT NULL,
    created_ms  BIGINT NOT NULL,
    PRIMARY KEY (webhook_id, id)
);
CREATE INDEX webhook_deliveries_recent ON webhook_deliveries (webhook_id, created_ms);

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
