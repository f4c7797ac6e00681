-- Speed of search (docs/performance-search.md).
--
-- search_docs_node: a node's entries, for the keyword search that walks nodes in result order and
-- checks each one's entries (common terms), and for reading a node's text to embed it.
-- search_title_fts: the trigram index of the title entries alone, so the title tier of a common
-- term's results is looked up rather than found by walking every page.
--
-- Versions of the embeddings, for the in-process vector caches of semantic search. Every save of
-- a node's vectors takes the next number of its workspace's counter (embed_versions: the row lock
-- makes the numbers of one workspace follow commit order) and stamps it on the node's row in
-- embed_nodes, which stays when the node's vectors are gone. A cache that has seen number n
-- reloads only the nodes stamped after n; several servers on one database stay correct.

-- +goose Up
CREATE INDEX search_docs_node ON search_docs (node_id, field);

CREATE VIRTUAL TABLE search_title_fts USING fts5 (text, content = 'search_docs', content_rowid = 'rid', tokenize = 'trigram');
INSERT INTO search_title_fts (rowid, text) SELECT rid, text FROM search_docs WHERE field = 'title';

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

CREATE TABLE embed_versions (
    workspace_id TEXT PRIMARY KEY,
    seq          BIGINT NOT NULL
);

CREATE TABLE embed_nodes (
    node_id      TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    seq          BIGINT NOT NULL
);
CREATE INDEX embed_nodes_seq ON embed_nodes (workspace_id, seq);

INSERT INTO embed_nodes (node_id, workspace_id, seq) SELECT DISTINCT node_id, workspace_id, 1 FROM embeddings;
INSERT INTO embed_versions (workspace_id, seq) SELECT DISTINCT workspace_id, 1 FROM embeddings;

-- +goose Down
DROP INDEX embed_nodes_seq;
DROP TABLE embed_nodes;
DROP TABLE embed_versions;
DROP TRIGGER search_title_au;
DROP TRIGGER search_title_ad;
DROP TRIGGER search_title_ai;
DROP TABLE search_title_fts;
DROP INDEX search_docs_node;
