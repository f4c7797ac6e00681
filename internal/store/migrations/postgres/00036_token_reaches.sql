-- The reach walk of AuthenticateNode's joined read (store/tokens_node.go) as a function, called
-- only for a token that is not workspace-scoped (docs/performance.md, "PostgreSQL page GET,
-- eighth pass"). Written into the statement as a recursive CTE, the walk's plan (a recursive
-- union of two index scans of nodes, a hash join with grants) was set up and torn down by every
-- execution, though the CASE runs it only for such a token: PostgreSQL initialises every
-- subplan of a statement before running it. That was 20-40% of the backend's CPU of a page GET
-- with a workspace-scoped token (pgbench, prepared, c=1: 48-125 us a call with the CTE against
-- 39-72 us with the call, load 13-20). A plpgsql function's statement is prepared once per
-- connection and planned only when called. STABLE: it reads with the calling statement's
-- snapshot, as the CTE did. The walk is reach.go's: up from the node on nodes' primary key,
-- at most 1000 steps (maxDepth), a grant of the token on any node of the way.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION quire_token_reaches(token text, node text) RETURNS boolean LANGUAGE plpgsql STABLE AS $f$
BEGIN
    RETURN EXISTS (
        WITH RECURSIVE up (id, parent_id, depth) AS (
            SELECT n.id, n.parent_id, 0 FROM nodes n WHERE n.id = node
            UNION ALL
            SELECT p.id, p.parent_id, up.depth + 1 FROM nodes p JOIN up ON p.id = up.parent_id
            WHERE up.depth < 1000
        )
        SELECT 1 FROM up WHERE EXISTS (SELECT 1 FROM grants g WHERE g.token_id = token AND g.target_id = up.id));
END
$f$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION quire_token_reaches(text, text);
