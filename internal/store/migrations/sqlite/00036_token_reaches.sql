-- PostgreSQL's twin makes AuthenticateNode's reach walk a function, so that its plan is not set
-- up by every page GET of a workspace-scoped token. SQLite's statement keeps the walk as a
-- recursive CTE: its statement is compiled once per connection, and a CASE branch's subquery runs
-- only when the branch is taken.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
