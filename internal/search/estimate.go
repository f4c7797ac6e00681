package search

import (
	"context"
	"strconv"

	"github.com/quire-dev/quire/internal/sqlq"
)

// PostgreSQL's probe (probeNodes) checks the next nodes' blocks one by one because a GIN bitmap
// of a common term is built whole, a million entries at a million blocks. For a rarer term the
// probe is the wrong bet: a word in 0.6% of 100,000 paragraphs is on 45% of the pages, so the
// probe read about 3,700 entries by ILIKE (9.4 ms of the server's CPU a search) where the GIN
// index lists its 583 entries for 5.4 ms, and two such words (2 pages) cost 12.4 ms against
// 1.4 ms. pg_trgm keeps no count of a trigram's entries (FTS5's sampled lists, trigrams.go, have
// no counterpart), so the frequency is estimated from a sample: the blocks of the next nodes in
// result order, the entries the probe would read first.
const (
	// sampleMin and sampleMax bound the entries sampled; between them, one entry in samplePer
	// of the table's (pg_class.reltuples), so that up to 500,000 entries a term with at most
	// 4 hits in its sample skips the probe, whatever the size; at a million entries, at most
	// 1; past 2,500,000, none does.
	sampleMin, sampleMax, samplePer = 100, 500, 1000
	// sampleHits is where the sample stops testing entries: a common term is known as such
	// after a few, and its search pays for them alone (the probe then finds its results at
	// once); a rarer one is tested on the whole sample.
	sampleHits = 10
	// sampleNodes bounds the nodes whose blocks are sampled (a workspace of empty pages).
	sampleNodes = 1000
)

// rareOnPostgres reports whether the terms, by a sample, are in so few entries that the trigram
// index lists every match within its bound (entriesPerNode × denseAfter): then PostgreSQL skips
// the probe and asks the index at once. The estimate is pessimistic, (hits + 1) / sampled of
// the table's entries, so that a sample without a hit does not call a term rare on its own. A
// table never analyzed (reltuples unknown), a sample of no entries, or sampleHits hits keep the
// probe.
func (r *run) rareOnPostgres(ctx context.Context, q Query, after *Key) (bool, error) {
	s := q
	s.ReachOf = "" // an estimate of the workspace's text: what the token reaches is left to the search
	a := sqlq.NewArgs(s.Workspace)
	ms, dir := keyOrder(s)
	// The sample is read twice, not materialized: counted on the entries' index alone, and
	// tested up to sampleHits hits.
	query := `WITH t AS (SELECT reltuples::bigint AS total FROM pg_class WHERE oid = 'search_docs'::regclass),
	s AS NOT MATERIALIZED (
		SELECT d.text_lower FROM (SELECT n.id, ` + ms + ` FROM nodes n WHERE ` + nodeFilter(s, after, "n.workspace_id", a) + `
			ORDER BY ` + ms + dir + `, n.id` + dir + ` LIMIT ` + strconv.Itoa(sampleNodes) + `) AS n
		CROSS JOIN LATERAL (SELECT d.text_lower FROM search_docs d WHERE d.node_id = n.id AND d.field = 'body' OFFSET 0) AS d
		LIMIT (SELECT LEAST(` + strconv.Itoa(sampleMax) + `, GREATEST(` + strconv.Itoa(sampleMin) + `, total / ` + strconv.Itoa(samplePer) + `)) FROM t))
	SELECT COALESCE((SELECT total FROM t), -1), (SELECT COUNT(*) FROM s),
		(SELECT COUNT(*) FROM (SELECT 1 FROM s WHERE ` + r.entryAll("s.text_lower", s.Terms, a) + ` LIMIT ` + strconv.Itoa(sampleHits) + `) AS h)`
	var total, sampled, hits int64
	if err := r.db.QueryRowContext(ctx, query, a.List...).Scan(&total, &sampled, &hits); err != nil {
		return false, err
	}
	return total >= 0 && sampled > 0 && hits < sampleHits && (hits+1)*total <= int64(entriesPerNode*denseAfter)*sampled, nil
}

// rareTest is rareOnPostgres's verdict in SQL, over the columns of the table's entries, the
// entries sampled and the hits (estimateCTE).
func rareTest(total, sampled, hits string) string {
	return "(" + total + " >= 0 AND " + sampled + " > 0 AND " + hits + " < " + strconv.Itoa(sampleHits) + " AND (" + hits + " + 1) * " + total +
		" <= " + strconv.Itoa(entriesPerNode*denseAfter) + " * " + sampled + ")"
}
