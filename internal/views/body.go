package views

import "github.com/quire-dev/quire/internal/jsonbody"

// CreateBody is POST /v2/databases/{id}/views as DecodeCreate reads it and as the document
// shows it.
var CreateBody = jsonbody.Body{Fields: []jsonbody.Field{
	{Name: "name", Type: "string", Required: true, MaxLength: MaxName},
	{Name: "type", Type: "string", Required: true, Enum: Kinds},
	{Name: "property_layout", Type: "array", Shape: "ViewLayoutItem", Nullable: true, MaxItems: MaxArray, Doc: "Columns by property id (title is accepted for the title property); timeline and form views take none."},
	{Name: "filter", Shape: "ViewFilterOrNull", Doc: "Select options may be named by their unique name; they are stored as ids."},
	{Name: "sorts", Type: "array", Shape: "ViewSort", Nullable: true, MaxItems: MaxArray},
	{Name: "group_by", Shape: "ViewGroupByOrNull", Doc: "Table and board views only."},
	{Name: "config", Shape: "ViewConfig", Nullable: true, Doc: "Only the keys of the view's type; keys left out take their defaults, as null does."},
}}

// PatchBody is the settings of PATCH on a view as DecodePatch reads them (the service adds
// in_trash).
var PatchBody = jsonbody.Body{Fields: []jsonbody.Field{
	{Name: "name", Type: "string", Nullable: true, MaxLength: MaxName, Doc: "null keeps it."},
	{Name: "type", Type: "string", Nullable: true, Enum: Kinds, Doc: "May be repeated, never changed (reason immutable); null is left out."},
	{Name: "property_layout", Type: "array", Shape: "ViewLayoutItem", Nullable: true, MaxItems: MaxArray, Doc: "Replaces the layout; null clears it."},
	{Name: "filter", Shape: "ViewFilterOrNull", Doc: "Replaces the filter; null clears it."},
	{Name: "sorts", Type: "array", Shape: "ViewSort", Nullable: true, MaxItems: MaxArray, Doc: "Replaces the sorts; null clears them."},
	{Name: "group_by", Shape: "ViewGroupByOrNull"},
	{Name: "config", Shape: "ViewConfig", Nullable: true, Doc: "Keys given replace those keys; a null key takes its default; null resets every key."},
	{Name: "page_sort", Type: "array", Items: "string", Nullable: true, MaxItems: MaxPageSort, Doc: "Manual record order: ids of records of the database; null clears it."},
}}
