-- On PostgreSQL a write no longer takes its workspace's event_heads row (store/events.go): it
-- inserts its events under provisional positions, negative and unique, drawn from this
-- sequence, and commits. Whoever reads the feed first numbers the committed provisional events
-- under the head's row lock, gap-free after the head, in the order of their provisional keys
-- (Store.stampEvents). A key is drawn by the write's last statement, when it already holds the
-- locks of every row it changed, so two writes of one entity draw keys in their commit order.
-- One value a statement: its events (at most 100) take -(value + 1) … -(value + 100), and the
-- sequence steps by 128 so that the next statement's keys lie below them. CACHE 1 (the
-- default) keeps values in the order they were drawn across connections.
-- Events already numbered keep their positions.

-- +goose Up
CREATE SEQUENCE events_provisional INCREMENT BY 128 START WITH 128 MINVALUE 128;

-- +goose Down
DROP SEQUENCE events_provisional;
