-- events_created served only the retention sweep, and every event paid for it. The sweep now
-- walks each workspace's feed on the primary key from its swept_seq and stops at the first
-- event not older than the cut: positions are handed out in commit order and created_ms is
-- taken just before (one writer here), so creation times grow with positions, and the walk
-- reads only the events it then deletes, plus one. events_entity stays a b-tree: SQLite has no
-- hash index, and the outbox's cost on SQLite is within issue 18's bound.

-- +goose Up
DROP INDEX events_created;

-- +goose Down
CREATE INDEX events_created ON events (created_ms);
