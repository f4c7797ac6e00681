-- The trigram indexes are filled in the background, in batches, instead of by every write
-- (docs/performance.md, "Append, fourth pass"). An append of 100 paragraphs spent about 45% of
-- its CPU on FTS5: tokenising each entry and writing a segment per statement, which the upkeep
-- loop then merged. Now a write adds its search_docs rows only; the store's upkeep loop
-- (store/search_index_tail.go) copies the rows into search_fts and search_title_fts a batch at a
-- time, one segment per batch, and moves search_fts_mark.rid past them in the same transaction.
--
-- The invariant, kept by every statement below and by the loop: an entry is in the trigram
-- indexes exactly when its rid is at most search_fts_mark.rid. Keyword search reads the entries
-- above the mark by substring (internal/search/tail.go), so its answers stay exact after every
-- write. So the triggers touch FTS5 only for entries at or below the mark: deleting or changing
-- an entry the indexes never held must not tell FTS5 to delete it (its 'delete' of text it does
-- not hold corrupts the index). An entry inserted at or below the mark (SQLite reuses the
-- highest rid after that row is deleted) is indexed at once, as before.

-- +goose Up
CREATE TABLE search_fts_mark (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    rid INTEGER NOT NULL
);
-- Every entry that exists now is indexed (00015's rebuild and the triggers since).
INSERT INTO search_fts_mark (id, rid) SELECT 1, COALESCE(MAX(rid), 0) FROM search_docs;

DROP TRIGGER search_title_au;
DROP TRIGGER search_title_ad;
DROP TRIGGER search_title_ai;
DROP TRIGGER search_docs_au;
DROP TRIGGER search_docs_ad;
DROP TRIGGER search_docs_ai;

-- +goose StatementBegin
CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs
WHEN new.rid <= (SELECT rid FROM search_fts_mark) BEGIN
    INSERT INTO search_fts (rowid, text) VALUES (new.rid, new.text || char(1, 1));
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
CREATE TRIGGER search_title_ai AFTER INSERT ON search_docs
WHEN new.field = 'title' AND new.rid <= (SELECT rid FROM search_fts_mark) BEGIN
    INSERT INTO search_title_fts (rowid, text) VALUES (new.rid, new.text || char(1, 1));
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

-- +goose Down
DROP TRIGGER search_title_au;
DROP TRIGGER search_title_ad;
DROP TRIGGER search_title_ai;
DROP TRIGGER search_docs_au;
DROP TRIGGER search_docs_ad;
DROP TRIGGER search_docs_ai;
-- What the loop had not indexed yet goes in now, as 00015's triggers would have put it.
INSERT INTO search_fts (rowid, text)
SELECT rid, text || char(1, 1) FROM search_docs WHERE rid > (SELECT rid FROM search_fts_mark);
INSERT INTO search_title_fts (rowid, text)
SELECT rid, text || char(1, 1) FROM search_docs WHERE field = 'title' AND rid > (SELECT rid FROM search_fts_mark);
DROP TABLE search_fts_mark;

-- +goose StatementBegin
CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs BEGIN
    INSERT INTO search_fts (rowid, text) VALUES (new.rid, new.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs BEGIN
    INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.rid, old.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_au AFTER UPDATE OF text ON search_docs BEGIN
    INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.rid, old.text || char(1, 1));
    INSERT INTO search_fts (rowid, text) VALUES (new.rid, new.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_ai AFTER INSERT ON search_docs WHEN new.field = 'title' BEGIN
    INSERT INTO search_title_fts (rowid, text) VALUES (new.rid, new.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_ad AFTER DELETE ON search_docs WHEN old.field = 'title' BEGIN
    INSERT INTO search_title_fts (search_title_fts, rowid, text) VALUES ('delete', old.rid, old.text || char(1, 1));
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_au AFTER UPDATE OF text ON search_docs WHEN old.field = 'title' BEGIN
    INSERT INTO search_title_fts (search_title_fts, rowid, text) VALUES ('delete', old.rid, old.text || char(1, 1));
    INSERT INTO search_title_fts (rowid, text) VALUES (new.rid, new.text || char(1, 1));
END;
-- +goose StatementEnd
