package service

import (
	"slices"

	"github.com/quire-dev/quire/internal/blocks"
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/views"
)

// The request bodies this package decodes, as their decoders read them (the keys they take)
// and as the OpenAPI document shows them (httpapi/schema_bodies.go builds each body's schema
// from its description here). A Shape names a schema the document builds from the packages'
// own tables (a block, a property value) or from httpapi's types (a parent, a file object).

const parentDoc = `{"type":"page_id","page_id":…} or {"type":"workspace","workspace":true} (workspace-scoped tokens only); type may be left out.`

// The pages' bodies: POST /v2/pages, PATCH /v2/pages/{id}, POST /v2/pages/{id}/move.
var (
	NewPageBody = jsonbody.Body{Noun: "A page", Fields: []jsonbody.Field{
		{Name: "parent", Shape: "ParentInput", Doc: parentDoc + " Left out: the workspace."},
		{Name: "page_type", Type: "string", Enum: []string{quire.PageTypePage, quire.PageTypeFolder, quire.PageTypeMindMap}, Default: quire.PageTypePage},
		{Name: "properties", Shape: "PropertyValuesInput"},
		{Name: "icon", Shape: "FileObject", Nullable: true, Doc: "null: none."},
		{Name: "cover", Shape: "FileObject", Nullable: true, Doc: "null: none."},
		{Name: "children", Type: "array", Shape: "BlockInput", MaxItems: blocks.MaxArray, Doc: "Content blocks, nested two levels deep; or send markdown instead."},
		{Name: "markdown", Type: "string", Doc: "GitHub-flavoured Markdown, parsed into blocks instead of children."},
	}}
	PagePatchBody = jsonbody.Body{Noun: "A page update", Fields: []jsonbody.Field{
		{Name: "properties", Shape: "PropertyValuesInput"},
		{Name: "icon", Shape: "FileObject", Nullable: true, Doc: "null clears it."},
		{Name: "cover", Shape: "FileObject", Nullable: true, Doc: "null clears it."},
		{Name: "in_trash", Type: "boolean", Doc: "true trashes the page, false restores it."},
		{Name: "archived", Type: "boolean", Hidden: true},
	}}
	MoveBody = jsonbody.Body{Noun: "A move", Fields: []jsonbody.Field{
		{Name: "parent", Shape: "ParentInput", Required: true, Doc: "The workspace, a page or folder, or a database: a page moved into one becomes a record (its title carries over, its other properties start empty); a record moved out becomes a page (its other property values are dropped). Folders, mind maps and databases do not go into a database."},
		{Name: "after", Type: "string", Format: "uuid", Nullable: true, Doc: "Place the node right after this sibling (a child block of a page parent, a top-level node); at the end when left out or null. Not with a database parent."},
		{Name: "before", Type: "string", Format: "uuid", Nullable: true, Doc: "Place the node right before this sibling; at the end when left out or null. Not with after, nor with a database parent."},
	}}
)

// The databases' bodies: POST /v2/databases, PATCH /v2/databases/{id}.
var (
	NewDatabaseBody = jsonbody.Body{Noun: "A database", Fields: []jsonbody.Field{
		{Name: "parent", Shape: "ParentInput", Required: true, Doc: `A page ({"type":"page_id","page_id":…}) or the workspace (workspace-scoped tokens only).`},
		{Name: "title", Type: "array", Shape: "RichTextItemInput", Nullable: true, MaxItems: blocks.MaxArray},
		{Name: "description", Type: "array", Shape: "RichTextItemInput", Nullable: true, MaxItems: blocks.MaxArray},
		{Name: "is_inline", Type: "boolean"},
		{Name: "icon", Shape: "FileObject", Nullable: true, Doc: "null: none."},
		{Name: "cover", Shape: "FileObject", Nullable: true, Doc: "null: none."},
		{Name: "properties", Type: "object", Shape: "SchemaEdit", Required: true, Doc: `Property name → {<type>: configuration} (or {"type":T, T: configuration}); exactly one title property.`},
	}}
	DatabasePatchBody = jsonbody.Body{Noun: "A database update", Fields: []jsonbody.Field{
		{Name: "title", Type: "array", Shape: "RichTextItemInput", Nullable: true, MaxItems: blocks.MaxArray},
		{Name: "description", Type: "array", Shape: "RichTextItemInput", Nullable: true, MaxItems: blocks.MaxArray},
		{Name: "is_inline", Type: "boolean"},
		{Name: "icon", Shape: "FileObject", Nullable: true, Doc: "null clears it."},
		{Name: "cover", Shape: "FileObject", Nullable: true, Doc: "null clears it."},
		{Name: "in_trash", Type: "boolean", Doc: "true trashes the database, false restores it."},
		{Name: "properties", Type: "object", Shape: "SchemaEdit", Doc: `Property name or id → new configuration, {"name": …} to rename, or null to remove.`},
		{Name: "archived", Type: "boolean", Hidden: true},
	}}
)

// ViewPatchBody is PATCH /v2/databases/{id}/views/{view_id}: the view's settings, which
// views.DecodePatch reads, and in_trash, which PatchView reads.
var ViewPatchBody = jsonbody.Body{Noun: views.PatchBody.Noun, Fields: slices.Concat(views.PatchBody.Fields, []jsonbody.Field{
	{Name: "in_trash", Type: "boolean", Doc: "true trashes the view, false restores it."},
})}

// The search bodies: POST /v2/search, POST /v2/search/semantic.
var (
	SearchBody = jsonbody.Body{Noun: "A search", Fields: []jsonbody.Field{
		{Name: "query", Type: "string", Nullable: true, MaxLength: MaxQueryLength, Doc: `Words or "quoted phrases", at most 20; each must occur in the title or in one block. Empty, null or left out: everything, last edited first.`},
		{Name: "filter", Shape: "SearchFilter", Nullable: true, Doc: "null: every kind."},
		{Name: "sort", Shape: "SearchSort", Nullable: true, Doc: "Replaces the ranking by relevance; null keeps it."},
		{Name: "start_cursor", Type: "string", Nullable: true, Doc: "null: the first page."},
		pageSizeField(defaultPageSize, ""),
	}}
	SemanticBody = jsonbody.Body{Noun: "A semantic search", Fields: []jsonbody.Field{
		{Name: "query", Type: "string", Required: true, MinLength: 1, MaxLength: MaxQueryLength, Doc: "What to look for, in your own words."},
		{Name: "filter", Shape: "SearchFilter", Nullable: true, Doc: "Only fragments of pages, databases, folders or mind maps; null: every kind."},
		pageSizeField(semanticPageSize, "Fragments per page, 1 to 100."),
		{Name: "start_cursor", Type: "string", Nullable: true, Doc: "next_cursor of the previous page, unchanged, with the same query, filter and score_threshold; null or left out: the first page."},
		{Name: "space_id", Type: "string", Nullable: true, Doc: "The token's workspace id (any other answers 404); null or left out: the token's workspace."},
		{Name: "score_threshold", Type: "number", Minimum: jsonbody.Limit(0), Maximum: jsonbody.Limit(1), Doc: "Leave out fragments scoring less (scores run from 0 to 1)."},
	}}
)

// defaultPageSize is the page_size of a search or a query that leaves it out.
const defaultPageSize = 20

// maxContentType is the longest media type an upload may announce, in bytes.
const maxContentType = 255

// pageSizeField is a body's page_size (decodePageSize), def when left out.
func pageSizeField(def int, doc string) jsonbody.Field {
	return jsonbody.Field{Name: "page_size", Type: "integer", Minimum: jsonbody.Limit(minPageSize), Maximum: jsonbody.Limit(maxPageSize), Default: def, Doc: doc}
}

// The records' bodies: POST /v2/databases/{id}/query, POST /v2/databases/{id}/mutations.
var (
	RecordQueryBody = jsonbody.Body{Noun: "A query", Fields: []jsonbody.Field{
		{Name: "filter", Shape: "QueryFilterInput", Nullable: true, Doc: "null: every record."},
		{Name: "sorts", Type: "array", Shape: "SortInput", Nullable: true, MaxItems: blocks.MaxArray},
		{Name: "start_cursor", Type: "string", Nullable: true, Doc: "null: the first page."},
		pageSizeField(defaultPageSize, ""),
		{Name: "filter_properties", Type: "array", Items: "string", Doc: "Return only these properties (ids or names)."},
		{Name: "view_id", Type: "string", Format: "uuid", Nullable: true, Doc: "Query through a view of this database: its filter and the request's filter both apply, and the request's sorts come first, then the view's. Not a view of this database (unknown, in trash, another database's): 400 at view_id."},
	}}
	MutationsBody = jsonbody.Body{Noun: "A mutations body", Fields: []jsonbody.Field{
		{Name: "mutations", Type: "array", Shape: "MutationInput", Required: true, MinItems: 1, MaxItems: MaxMutations},
	}}
)

// AppendBody is PATCH /v2/blocks/{id}/children: the blocks and where they go (DecodePlacement).
var AppendBody = jsonbody.Body{Noun: "An append", Fields: []jsonbody.Field{
	{Name: "children", Type: "array", Shape: "BlockInput", Required: true, MaxItems: blocks.MaxArray, Doc: "Blocks to append, nested two levels deep, at most 1000 in all."},
	{Name: "after", Type: "string", Format: "uuid", Nullable: true, Doc: "Insert right after this child instead of at the end; null is the end."},
	{Name: "before", Type: "string", Format: "uuid", Nullable: true, Doc: "Insert right before this child instead of at the end; null is the end. Not with after."},
	{Name: "position", Shape: "PositionInput", Doc: "Where to insert: start, end, or after_block."},
}}

// NewUploadBody is POST /v2/files/upload-url.
var NewUploadBody = jsonbody.Body{Noun: "An upload", Fields: []jsonbody.Field{
	{Name: "parent", Shape: "UploadParent", Nullable: true, Doc: "The page the file is for; a token that reads it may download the file. null or left out: none."},
	{Name: "filename", Type: "string", Required: true, MinLength: 1, MaxLength: maxFileName, Doc: `A name, not a path: no / or \, no control characters.`},
	{Name: "content_type", Type: "string", Required: true, MaxLength: maxContentType, Doc: "The media type the PUT must send, e.g. image/png."},
	{Name: "size", Type: "integer", Nullable: true, Minimum: jsonbody.Limit(0), Maximum: jsonbody.Limit(float64(MaxFileSize)), Doc: "Bytes the PUT must send, exactly. Optional: left out (with content_length) the PUT may send up to 100 MiB (104857600 bytes) and the size is what it sent."},
	{Name: "content_length", Type: "integer", Nullable: true, Minimum: jsonbody.Limit(0), Maximum: jsonbody.Limit(float64(MaxFileSize)), Doc: "The same as size, under the original service's generated client's name; when both are given they must be equal."},
}}

// The webhooks' bodies: POST /v2/webhooks, PATCH /v2/webhooks/{id}.
var (
	NewWebhookBody = jsonbody.Body{Fields: []jsonbody.Field{
		{Name: "url", Type: "string", Required: true, Format: "uri", MaxLength: maxWebhookURL, Doc: "https, or http to loopback (any http with the server's --webhook-allow-private). Redirects are not followed."},
		{Name: "event_types", Type: "array", Items: "string", Nullable: true, Doc: "Only these event types; absent or empty: every type."},
		{Name: "description", Type: "string", MaxLength: maxWebhookDescription},
	}}
	WebhookChangeBody = jsonbody.Body{Fields: []jsonbody.Field{
		{Name: "url", Type: "string", Format: "uri", MaxLength: maxWebhookURL},
		{Name: "event_types", Type: "array", Items: "string", Nullable: true, Doc: "null or empty: every type."},
		{Name: "description", Type: "string", MaxLength: maxWebhookDescription},
		{Name: "status", Type: "string", Enum: []string{quire.WebhookActive}, Doc: "active resumes a failing webhook with the event that failed."},
	}}
)
