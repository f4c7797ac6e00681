package mindmap

import "github.com/quire-dev/quire/internal/jsonbody"

// NewBody is POST /v2/mind-maps as DecodeNew reads it (the caller decodes parent) and as the
// document shows it.
var NewBody = jsonbody.Body{Noun: "A mind map", Fields: []jsonbody.Field{
	{Name: "parent", Shape: "ParentInput", Required: true, Doc: `{"type":"page_id","page_id":…} or {"type":"workspace","workspace":true} (workspace-scoped tokens only); type may be left out.`},
	{Name: "title", Shape: "MindMapTitleInput", Required: true},
	{Name: "root", Shape: "MindMapNodeInput", Doc: "The tree; when left out, a root whose text is the title."},
	{Name: "settings", Shape: "MindMapSettingsInput"},
}}

// PatchBody is PATCH /v2/mind-maps/{id} as DecodePatch reads it.
var PatchBody = jsonbody.Body{Noun: "A mind map update", Fields: []jsonbody.Field{
	{Name: "title", Shape: "MindMapTitleInput"},
	{Name: "settings", Shape: "MindMapSettingsInput", Doc: "The settings named change; the others stay."},
	{Name: "edits", Type: "array", Shape: "MindMapEdit", MaxItems: MaxArray, Doc: "Applied in order, all or none."},
}}

// SettingsShape is a mind map's settings as decodeSettings reads them.
var SettingsShape = jsonbody.Body{Noun: "settings", Fields: []jsonbody.Field{
	{Name: "layout", Type: "string", Enum: Layouts},
	{Name: "theme", Type: "string", Enum: Themes},
}}

// NodeShape is a node as decodeNode reads it, with its subtree.
var NodeShape = jsonbody.Body{Noun: "A node", Fields: []jsonbody.Field{
	{Name: "id", Type: "string", Format: "uuid", Doc: "Chosen by the client (unique within the map), or made by the server."},
	{Name: "text", Type: "string", MaxLength: MaxTextLength},
	{Name: "color", Type: "string", Enum: Colors},
	{Name: "collapsed", Type: "boolean"},
	{Name: "children", Type: "array", Shape: "MindMapNodeInput", MaxItems: MaxArray},
}}

// EditShape is every member an edit may hold, each as decodeEdit reads it; editFields says
// which op takes which, and the document builds one variant per op from both.
var EditShape = jsonbody.Body{Noun: "An edit", Fields: []jsonbody.Field{
	{Name: "op", Type: "string", Required: true, Enum: []string{OpAdd, OpUpdate, OpMove, OpDelete}},
	{Name: "node_id", Type: "string", Format: "uuid"},
	{Name: "parent_id", Type: "string", Format: "uuid"},
	{Name: "after", Type: "string", Format: "uuid", Doc: "Place the node right after this child of parent_id; last when neither after nor position is sent."},
	{Name: "position", Shape: "MindMapPositionInput"},
	{Name: "node", Shape: "MindMapNodeInput"},
	{Name: "text", Type: "string", MaxLength: MaxTextLength},
	{Name: "color", Type: "string", Enum: Colors},
	{Name: "collapsed", Type: "boolean"},
}}

// PositionShape is an edit's position, the start or the end of parent_id's children
// (decodePosition).
var PositionShape = jsonbody.Body{Noun: "position", Fields: []jsonbody.Field{
	{Name: "type", Type: "string", Required: true, Enum: []string{"start", "end"}},
}}
