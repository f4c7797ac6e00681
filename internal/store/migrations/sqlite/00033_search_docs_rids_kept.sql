-- search_docs' rids are never reused (AUTOINCREMENT), so a rid names one entry, of one node and
-- field, for the life of the store (docs/performance.md, "Keyword search, seventh pass").
--
-- Keyword search maps each FTS5 match (a rid) to its node. That was a seek into search_docs per
-- match, a fifth of a search for a word in 0.6% of 100,000 paragraphs (issue 15); a rid that is
-- never reused has a node and field that never change, so internal/search keeps them
-- (entrynodes.go) and asks FTS5 alone. Before, SQLite gave a new row the highest rid plus one,
-- the rid of a deleted last entry again.
--
-- And so the two triggers that indexed an entry inserted at or below the FTS5 mark at once
-- (00027) go: a new rid is above every rid ever given, and the mark is one of those (the
-- sequence starts at least at the mark, below, in case the mark's own entry is gone). Each
-- tested the mark on every inserted entry of an append.
--
-- The rows keep their rid, so the FTS5 indexes, which point at rids, stay as they are. The
-- other tables' triggers and the two FTS5 views name search_docs; the rename below is done
-- with legacy_alter_table on so that SQLite does not check them while search_docs is gone.

-- +goose Up
PRAGMA legacy_alter_table = ON;
CREATE TABLE search_docs_kept (
    rid     INTEGER PRIMARY KEY AUTOINCREMENT,
    ref     TEXT NOT NULL UNIQUE,
    node_id TEXT NOT NULL,
    field   TEXT NOT NULL,
    text    TEXT NOT NULL
);
INSERT INTO search_docs_kept (rid, ref, node_id, field, text) SELECT rid, ref, node_id, field, text FROM search_docs;
DROP TABLE search_docs;
ALTER TABLE search_docs_kept RENAME TO search_docs;
PRAGMA legacy_alter_table = OFF;
DELETE FROM sqlite_sequence WHERE name = 'search_docs';
INSERT INTO sqlite_sequence (name, seq)
SELECT 'search_docs', MAX(COALESCE((SELECT MAX(rid) FROM search_docs), 0), (SELECT rid FROM search_fts_mark));
CREATE INDEX search_docs_node ON search_docs (node_id, field);

-- As 00027 left them, less search_docs_ai and search_title_ai.
-- +goose StatementBegin
CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs
WHEN old.rid <= (SELECT rid FROM search_fts_mark) BEGIN
    INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.rid, old.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_au AFTER UPDATE OF text ON search_docs
WHEN old.rid <= (SELECT rid FROM search_fts_mark) BEGIN
    INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.rid, old.text || char(1, 1));
    INSERT INTO search_fts (rowid, text) VALUES (new.rid, new.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_ad AFTER DELETE ON search_docs
WHEN old.field = 'title' AND old.rid <= (SELECT rid FROM search_fts_mark) BEGIN
    INSERT INTO search_title_fts (search_title_fts, rowid, text) VALUES ('delete', old.rid, old.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_au AFTER UPDATE OF text ON search_docs
WHEN old.field = 'title' AND old.rid <= (SELECT rid FROM search_fts_mark) BEGIN
    INSERT INTO search_title_fts (search_title_fts, rowid, text) VALUES ('delete', old.rid, old.text || char(1, 1));
    INSERT INTO search_title_fts (rowid, text) VALUES (new.rid, new.text || char(1, 1));
END;
-- +goose StatementEnd
-- The embedding queue, as 00022 left it.
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ai AFTER INSERT ON search_docs
WHEN NOT EXISTS (SELECT 1 FROM embed_queue WHERE node_id = new.node_id
    AND queued_ms = CAST(unixepoch('subsec') * 1000 AS INTEGER) AND attempts = 0 AND not_before = 0) BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_au AFTER UPDATE OF text ON search_docs
WHEN NOT EXISTS (SELECT 1 FROM embed_queue WHERE node_id = new.node_id
    AND queued_ms = CAST(unixepoch('subsec') * 1000 AS INTEGER) AND attempts = 0 AND not_before = 0) BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ad AFTER DELETE ON search_docs
WHEN NOT EXISTS (SELECT 1 FROM embed_queue WHERE node_id = old.node_id
    AND queued_ms = CAST(unixepoch('subsec') * 1000 AS INTEGER) AND attempts = 0 AND not_before = 0) BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (old.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd

-- +goose Down
PRAGMA legacy_alter_table = ON;
CREATE TABLE search_docs_reused (
    rid     INTEGER PRIMARY KEY,
    ref     TEXT NOT NULL UNIQUE,
    node_id TEXT NOT NULL,
    field   TEXT NOT NULL,
    text    TEXT NOT NULL
);
INSERT INTO search_docs_reused (rid, ref, node_id, field, text) SELECT rid, ref, node_id, field, text FROM search_docs;
DROP TABLE search_docs;
ALTER TABLE search_docs_reused RENAME TO search_docs;
PRAGMA legacy_alter_table = OFF;
DELETE FROM sqlite_sequence WHERE name = 'search_docs';
CREATE INDEX search_docs_node ON search_docs (node_id, field);

-- +goose StatementBegin
CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs
WHEN new.rid <= (SELECT rid FROM search_fts_mark) BEGIN
    INSERT INTO search_fts (rowid, text) VALUES (new.rid, new.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_ai AFTER INSERT ON search_docs
WHEN new.field = 'title' AND new.rid <= (SELECT rid FROM search_fts_mark) BEGIN
    INSERT INTO search_title_fts (rowid, text) VALUES (new.rid, new.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs
WHEN old.rid <= (SELECT rid FROM search_fts_mark) BEGIN
    INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.rid, old.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_au AFTER UPDATE OF text ON search_docs
WHEN old.rid <= (SELECT rid FROM search_fts_mark) BEGIN
    INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.rid, old.text || char(1, 1));
    INSERT INTO search_fts (rowid, text) VALUES (new.rid, new.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_ad AFTER DELETE ON search_docs
WHEN old.field = 'title' AND old.rid <= (SELECT rid FROM search_fts_mark) BEGIN
    INSERT INTO search_title_fts (search_title_fts, rowid, text) VALUES ('delete', old.rid, old.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_au AFTER UPDATE OF text ON search_docs
WHEN old.field = 'title' AND old.rid <= (SELECT rid FROM search_fts_mark) BEGIN
    INSERT INTO search_title_fts (search_title_fts, rowid, text) VALUES ('delete', old.rid, old.text || char(1, 1));
    INSERT INTO search_title_fts (rowid, text) VALUES (new.rid, new.text || char(1, 1));
END;
-- +goose StatementEnd
-- The embedding queue, as 00022 left it.
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ai AFTER INSERT ON search_docs
WHEN NOT EXISTS (SELECT 1 FROM embed_queue WHERE node_id = new.node_id
    AND queued_ms = CAST(unixepoch('subsec') * 1000 AS INTEGER) AND attempts = 0 AND not_before = 0) BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_au AFTER UPDATE OF text ON search_docs
WHEN NOT EXISTS (SELECT 1 FROM embed_queue WHERE node_id = new.node_id
    AND queued_ms = CAST(unixepoch('subsec') * 1000 AS INTEGER) AND attempts = 0 AND not_before = 0) BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (new.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_queue_ad AFTER DELETE ON search_docs
WHEN NOT EXISTS (SELECT 1 FROM embed_queue WHERE node_id = old.node_id
    AND queued_ms = CAST(unixepoch('subsec') * 1000 AS INTEGER) AND attempts = 0 AND not_before = 0) BEGIN
    INSERT INTO embed_queue (node_id, queued_ms) VALUES (old.node_id, CAST(unixepoch('subsec') * 1000 AS INTEGER))
    ON CONFLICT (node_id) DO UPDATE SET queued_ms = excluded.queued_ms, attempts = 0, not_before = 0;
END;
-- +goose StatementEnd

