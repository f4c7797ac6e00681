-- The outbox's indexes cost more than its rows: a mutation batch of 100 records writes 100
-- events, and on PostgreSQL (measured, docs/performance.md "Third pass") the heap row and the
-- primary key took about 1 ms of server CPU for them, events_entity about 1.2 ms more and
-- events_created 0.3-0.5 ms, which put the batch 15% above its cost without events (issue 18
-- allows 10%).
--
-- events_created served only the retention sweep. The sweep now walks each workspace's feed on
-- the primary key from its swept_seq and stops at the first event not older than the cut:
-- positions are handed out under the head's lock in commit order and created_ms is taken just
-- before, so creation times grow with positions nearly (two transactions waiting for the lock,
-- or two servers' clocks, can swap them by a little, which only makes the sweep keep an event
-- a little longer, never leaves a hole), and the walk reads only the events it then deletes,
-- plus one.
--
-- events_entity serves GET /v2/events?entity_id=, an equality on an id that names a handful of
-- events at most. A hash index answers an equality with a 4-byte code per row, where the b-tree
-- on (workspace_id, entity_id, seq) kept 80-byte keys and compared two 36-character texts per
-- level on every insert into a random leaf; the feed's filters on workspace and position are
-- then checked on the few rows it finds, which the read sorts by seq.

-- +goose Up
DROP INDEX events_created;
DROP INDEX events_entity;
CREATE INDEX events_entity ON events USING hash (entity_id);

-- +goose Down
DROP INDEX events_entity;
CREATE INDEX events_entity ON events (workspace_id, entity_id, seq);
CREATE INDEX events_created ON events (created_ms);
