-- The outbox of GET /v2/events: every write that changes content records its events in its own
-- transaction, so no acknowledged change is missing from the feed and a rolled-back one is
-- never in it. seq is the event's position in its workspace's feed, handed out by the
-- workspace's event_heads row as the writing transaction's last statement before COMMIT: the
-- row's lock is held until the commit, so positions are given in commit order and a reader
-- that has seen position n can never later see a new event below n (a cursor is a position).
-- swept_seq is how far the retention sweep has deleted: a cursor below it has lost events.
-- reach_id is the node whose reach lets a token see the event (the page of a block event, the
-- database of a view's); user_id and bot_id are the authors (the token and the user it acts for).

-- +goose Up
CREATE TABLE event_heads (
    workspace_id TEXT PRIMARY KEY,
    seq          BIGINT NOT NULL,
    swept_seq    BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE events (
    workspace_id TEXT NOT NULL,
    seq          BIGINT NOT NULL,
    id           TEXT NOT NULL,
    type         TEXT NOT NULL,
    entity_type  TEXT NOT NULL,
    entity_id    TEXT NOT NULL,
    parent_type  TEXT NOT NULL,
    parent_id    TEXT NOT NULL,
    reach_id     TEXT NOT NULL,
    user_id      TEXT NOT NULL,
    bot_id       TEXT NOT NULL,
    data         TEXT NOT NULL,
    created_ms   BIGINT NOT NULL,
    PRIMARY KEY (workspace_id, seq)
);
CREATE INDEX events_entity ON events (workspace_id, entity_id, seq);
CREATE INDEX events_created ON events (created_ms);

-- +goose Down
DROP TABLE events;
DROP TABLE event_heads;
