-- Terms of one or two characters found on the trigram indexes (store/search_short.go).
--
-- A trigram index has no entry for a substring shorter than three characters, so such a term
-- was found by reading the nodes one by one (a bounded walk, 20 ms for a term that is nowhere
-- in a million blocks). But a two-character substring followed by any character is the start
-- of a trigram: "zq" occurs in an entry exactly when some trigram "zq?" does, and the trigrams
-- of the index are listed in order by an fts5vocab table, so the entries holding "zq" are read
-- from the range of terms from "zq" on. Only an occurrence at the end of the text is followed
-- by nothing: each entry is indexed with two U+0001 characters after its text (one for a
-- two-character term, two for a one-character term), which no search term holds.
--
-- The indexes read their text from views that add the padding, so 'rebuild' and
-- 'integrity-check' see what the triggers wrote; the title index's view holds the titles alone.
-- Both indexes are rebuilt here: 16 s for a million entries on a 2-core machine (docs/performance.md).

-- +goose Up
DROP TRIGGER search_title_au;
DROP TRIGGER search_title_ad;
DROP TRIGGER search_title_ai;
DROP TRIGGER search_docs_au;
DROP TRIGGER search_docs_ad;
DROP TRIGGER search_docs_ai;
DROP TABLE search_title_fts;
DROP TABLE search_fts;

CREATE VIEW search_fts_text AS SELECT rid, text || char(1, 1) AS text FROM search_docs;
CREATE VIEW search_title_text AS SELECT rid, text || char(1, 1) AS text FROM search_docs WHERE field = 'title';
CREATE VIRTUAL TABLE search_fts USING fts5 (text, content = 'search_fts_text', content_rowid = 'rid', tokenize = 'trigram');
CREATE VIRTUAL TABLE search_title_fts USING fts5 (text, content = 'search_title_text', content_rowid = 'rid', tokenize = 'trigram');
-- As in 00013: the store's upkeep loop merges the segments.
INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 0);
INSERT INTO search_title_fts (search_title_fts, rank) VALUES ('automerge', 0);
INSERT INTO search_fts (search_fts) VALUES ('rebuild');
INSERT INTO search_title_fts (search_title_fts) VALUES ('rebuild');
-- Every trigram's occurrences (term, doc, col, offset), in term order.
CREATE VIRTUAL TABLE search_fts_terms USING fts5vocab (search_fts, 'instance');
CREATE VIRTUAL TABLE search_title_terms USING fts5vocab (search_title_fts, 'instance');

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

-- +goose Down
DROP TRIGGER search_title_au;
DROP TRIGGER search_title_ad;
DROP TRIGGER search_title_ai;
DROP TRIGGER search_docs_au;
DROP TRIGGER search_docs_ad;
DROP TRIGGER search_docs_ai;
DROP TABLE search_title_terms;
DROP TABLE search_fts_terms;
DROP TABLE search_title_fts;
DROP TABLE search_fts;
DROP VIEW search_title_text;
DROP VIEW search_fts_text;

CREATE VIRTUAL TABLE search_fts USING fts5 (text, content = 'search_docs', content_rowid = 'rid', tokenize = 'trigram');
CREATE VIRTUAL TABLE search_title_fts USING fts5 (text, content = 'search_docs', content_rowid = 'rid', tokenize = 'trigram');
INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 0);
INSERT INTO search_title_fts (search_title_fts, rank) VALUES ('automerge', 0);
INSERT INTO search_fts (search_fts) VALUES ('rebuild');
INSERT INTO search_title_fts (rowid, text) SELECT rid, text FROM search_docs WHERE field = 'title';

-- +goose StatementBegin
CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs BEGIN
    INSERT INTO search_fts (rowid, text) VALUES (new.rid, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs BEGIN
    INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.rid, old.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_docs_au AFTER UPDATE OF text ON search_docs BEGIN
    INSERT INTO search_fts (search_fts, rowid, text) VALUES ('delete', old.rid, old.text);
    INSERT INTO search_fts (rowid, text) VALUES (new.rid, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_ai AFTER INSERT ON search_docs WHEN new.field = 'title' BEGIN
    INSERT INTO search_title_fts (rowid, text) VALUES (new.rid, new.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_ad AFTER DELETE ON search_docs WHEN old.field = 'title' BEGIN
    INSERT INTO search_title_fts (search_title_fts, rowid, text) VALUES ('delete', old.rid, old.text);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER search_title_au AFTER UPDATE OF text ON search_docs WHEN old.field = 'title' BEGIN
    INSERT INTO search_title_fts (search_title_fts, rowid, text) VALUES ('delete', old.rid, old.text);
    INSERT INTO search_title_fts (rowid, text) VALUES (new.rid, new.text);
END;
-- +goose StatementEnd
