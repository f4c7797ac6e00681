-- The trigram GIN indexes keep at most 1 MB of pending entries, not PostgreSQL's default 4 MB
-- (docs/performance.md, "PostgreSQL plans: search at full scale and the page GET, sixth pass").
-- A GIN index defers new entries to its pending list (fastupdate, on by default), which every
-- lookup of the index reads whole, entry by entry, and which only an insert past the limit,
-- VACUUM (autovacuum) or gin_clean_pending_list merges; a manual ANALYZE does not. So after a
-- burst of writes each search paid for up to 4 MB of pending entries until the next merge:
-- 2,000 paragraphs (2.8 MB) pending in search_docs_lower took the lookup of a word from 3.6 to
-- 6.0 ms of the backend's CPU; 1,000 titles (2 MB) pending in nodes_title_trgm took the titles'
-- lookup from 0.04 to 1.4 ms, and their pending pages count in the planner's cost of the index,
-- which pushed that lookup toward a scan of nodes.
-- At 1 MB the merges come four times as often, in smaller batches: an INSERT of 100
-- entries cost the same CPU within the noise (14.3-16.8 ms against 14.8-15.5 ms at 4 MB; at
-- 512 kB it cost 17.5-19.0 ms), and a search reads at most a quarter of what it did.
-- The setting takes a SHARE UPDATE EXCLUSIVE lock: writes and reads go on while it applies.

-- +goose Up
ALTER INDEX search_docs_lower SET (gin_pending_list_limit = 1024);
ALTER INDEX nodes_title_trgm SET (gin_pending_list_limit = 1024);

-- +goose Down
ALTER INDEX search_docs_lower RESET (gin_pending_list_limit);
ALTER INDEX nodes_title_trgm RESET (gin_pending_list_limit);
