// Package backup makes one consistent archive of a live store and restores it onto either
// engine. The archive is neutral: every content table as JSON lines read inside one snapshot,
// the local file bytes, and a manifest with the schema version, row counts and a SHA-256 of
// every entry. Derived state (the keyword search index) is not carried: the store's own
// triggers rebuild it as the rows are restored, and the blocks' entries, which the store's
// insert writes rather than a trigger on SQLite, by one statement after them; exactly what was
// built when the rows were first written. Embeddings are carried with their queue, since computing them again is slow.
// The event feed is carried with its positions, so that the cursors integrations hold still
// resume where they were.
package backup

import (
	"fmt"
	"strings"
)

// kind is how a column's values are written in the archive, whatever the engine stores.
type kind string

const (
	kText  kind = "text"  // JSON string or null
	kInt   kind = "int"   // JSON integer
	kFloat kind = "float" // JSON number or null
	kBool  kind = "bool"  // JSON true/false: INTEGER 0/1 on SQLite, BOOLEAN on PostgreSQL
	kBytes kind = "bytes" // base64 JSON string or null: BLOB on SQLite, BYTEA on PostgreSQL
)

// Column is one column of a carried table.
type Column struct {
	Name string `json:"name"`
	Kind kind   `json:"kind"`
}

type table struct {
	name    string
	columns []Column
}

// sources are the relations a backup reads for a table, where not the table itself: the queue
// with the writers' log (migration 00022) folded in, which a restore loads as the queue.
var sources = map[string]string{"embed_queue": "embed_queue_folded"}

// cols reads "name:kind" pairs; a bare name is text.
func cols(spec string) []Column {
	var out []Column
	for _, f := range strings.Fields(spec) {
		name, k, ok := strings.Cut(f, ":")
		if !ok {
			k = string(kText)
		}
		out = append(out, Column{Name: name, Kind: kind(k)})
	}
	return out
}

// tables are the carried tables in the order a restore inserts them: a table after those its
// foreign keys name, and embed_queue last, because the triggers of the content tables fill it
// as rows arrive and the restore then replaces that with the queue as it was.
var tables = []table{
	{"settings", cols("key value")},
	{"workspaces", cols("id name created_ms:int")},
	{"users", cols("id workspace_id name email avatar_url created_ms:int")},
	{"tokens", cols("id workspace_id owner_id integration_id name secret_hash scopes workspace_scoped:bool created_ms:int revoked_ms:int")},
	{"grants", cols("token_id target_id created_ms:int")},
	{"idempotency_keys", cols("token_id key request_hash state status:int headers body:bytes claimed_ms:int created_ms:int")},
	{"nodes", cols("id workspace_id object page_type parent_type parent_id position title title_plain properties description icon cover " +
		"is_inline:bool in_trash:bool trashed_under:bool version:int created_ms:int created_by edited_ms:int edited_by")},
	{"blocks", cols("id workspace_id page_id parent_id position type content has_children:bool in_trash:bool version:int created_ms:int created_by edited_ms:int edited_by")},
	{"views", cols("id workspace_id database_id position name type spec in_trash:bool version:int created_ms:int created_by edited_ms:int edited_by")},
	{"record_values", cols("database_id record_id property_id ord:int v_text v_num:float")},
	{"record_indexed", cols("database_id property_id created_ms:int lease_ms:int")}, // which properties keep record_values rows
	{"mind_maps", cols("id root_id settings node_count:int")},
	{"mind_map_nodes", cols("mind_map_id id parent_id position text color collapsed:bool")},
	{"files", cols("id workspace_id token_id parent_id name content_type size:int status storage_key created_ms:int expires_ms:int completed_ms:int")},
	{"file_uses", cols("file_id page_id")},
	{"event_heads", cols("workspace_id seq:int swept_seq:int")},
	{"events", cols("workspace_id seq:int id type entity_type entity_id parent_type parent_id reach_id user_id bot_id data created_ms:int")},
	{"webhooks", cols("id workspace_id url event_types description secret status position:int created_ms:int " +
		"lease_owner lease_until:int next_attempt_ms:int attempts:int failing_since_ms:int")},
	{"webhook_deliveries", cols("webhook_id id event_id event_seq:int attempt:int status_code:int error duration_ms:int created_ms:int")},
	{"embeddings", cols("node_id chunk:int workspace_id model dim:int vector:bytes text_hash text block_id")},
	{"embed_nodes", cols("node_id workspace_id seq:int")},
	{"embed_versions", cols("workspace_id seq:int")},
	{"embed_queue", cols("node_id queued_ms:int attempts:int not_before:int")},
}

// derived are the store's tables that a restore rebuilds instead of carrying: the keyword
// index, written by the triggers on nodes, blocks and mind_map_nodes and by one statement
// after the blocks (restorer.indexBlocks) (with SQLite's FTS5 tables and their shadow tables,
// matched by prefix), the migrations' own bookkeeping, and the record pairs (store/records_pairs.go): a restored store has none, and queries register them
// again. embed_log is carried folded into embed_queue (sources).
var derived = []string{"search_docs", "search_fts", "search_title_fts", "search_fts_terms", "search_title_terms", "goose_db_version",
	"record_pair_keys", "record_pairs", "embed_log"}

// tableNamed returns the carried table name.
func tableNamed(name string) (table, error) {
	for _, t := range tables {
		if t.name == name {
			return t, nil
		}
	}
	return table{}, fmt.Errorf("unknown table %q", name)
}

func (t table) columnList() string {
	names := make([]string, len(t.columns))
	for i, c := range t.columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}
