-- A block's has_children stored, as in the SQLite twin, which says why.

-- +goose Up
ALTER TABLE blocks ADD COLUMN has_children BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE blocks SET has_children = TRUE WHERE id IN (SELECT parent_id FROM blocks WHERE in_trash = FALSE);

-- +goose Down
ALTER TABLE blocks DROP COLUMN has_children;
