-- A block's has_children stored (docs/performance.md, "Children over HTTP, third pass"). It was
-- computed on every read, a probe of the children index per block listed: a page of 100
-- children stepped 101 such subqueries, a quarter of the answer's CPU on SQLite and 101
-- round trips into PostgreSQL's executor. The store keeps it in the writing transaction:
-- every write that adds, removes, trashes or restores a block notes the parent, and the
-- transaction sets the parents' flag from the children index before it commits
-- (store/blocks_children.go). True when a block not in trash has this block as its parent;
-- a child_page or child_database block counts its node's content, as before.

-- +goose Up
ALTER TABLE blocks ADD COLUMN has_children INTEGER NOT NULL DEFAULT FALSE;
UPDATE blocks SET has_children = TRUE WHERE id IN (SELECT parent_id FROM blocks WHERE in_trash = FALSE);

-- +goose Down
ALTER TABLE blocks DROP COLUMN has_children;
