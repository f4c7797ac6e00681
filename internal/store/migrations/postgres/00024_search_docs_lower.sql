-- Keyword search tests an entry's text by a lower-cased copy kept beside it (docs/performance.md,
-- "Keyword search over HTTP, third pass"). ILIKE lowers the pattern and the whole text of every
-- row it tests: each candidate the trigram index gives (rechecked, since trigrams only narrow)
-- and each entry a walk or probe reads one by one. The copy is a stored generated column, so
-- every writer of search_docs (the triggers of 00006–00012 and the store's own inserts) fills it
-- without a change, in the same statement; the trigram index moves to it (pg_trgm lowers its
-- trigrams either way, so the index lists the same entries). `LIKE lower($n)` on the copy
-- matches exactly what `ILIKE $n` matched on the text: for a multibyte encoding PostgreSQL's
-- ILIKE is that very test, lower() of both sides and LIKE.

-- +goose Up
ALTER TABLE search_docs ADD COLUMN text_lower TEXT GENERATED ALWAYS AS (lower(text)) STORED;
DROP INDEX search_docs_text;
CREATE INDEX search_docs_lower ON search_docs USING gin (text_lower gin_trgm_ops);

-- +goose Down
DROP INDEX search_docs_lower;
ALTER TABLE search_docs DROP COLUMN text_lower;
CREATE INDEX search_docs_text ON search_docs USING gin (text gin_trgm_ops);
