-- The trigram indexes no longer merge their segments inside the write that fills a level
-- (automerge): the store's upkeep loop merges them in the background (store/upkeep.go).
-- crisismerge (16 segments on one level) still merges inside a write if the loop falls behind.

-- +goose Up
INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 0);
INSERT INTO search_title_fts (search_title_fts, rank) VALUES ('automerge', 0);

-- +goose Down
INSERT INTO search_title_fts (search_title_fts, rank) VALUES ('automerge', 4);
INSERT INTO search_fts (search_fts, rank) VALUES ('automerge', 4);
