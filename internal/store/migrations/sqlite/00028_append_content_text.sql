-- PostgreSQL's twin computes a new block's search text once instead of twice and with less
-- work (its statement trigger and quire_content_text). SQLite's new blocks have their search
-- text computed in Go (store/search_index.go) before their INSERT, so nothing changes here.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
